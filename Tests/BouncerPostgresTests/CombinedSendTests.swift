import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// Sends on PostgreSQL go a group at a time in one statement (their rows, flags and events as
/// arrays), sent with BEGIN and COMMIT in one round trip: what that statement writes must be what
/// the sends one by one would have written.
@Suite struct CombinedSendTests {
    /// Texts that an array literal must carry unchanged: its quotes, backslashes, separators,
    /// braces, the word NULL, white space, the empty text and characters past ASCII.
    static let awkwardTexts = ["", "NULL", "null", " ", "a,b", "{x}", "\"quoted\"", "back\\slash", "\\\"", "tab\there\nnewline",
                               "émoji 🎉 and 中文", "'single'", "$1 ?", "}{,\"\\"]

    @Test func arrayLiteralsCarryEveryValueUnchanged() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        let values: [DatabaseValue] = Self.awkwardTexts.map(DatabaseValue.text) + [.null]
        let back = try connection.fetchAll("SELECT value, value IS NULL AS missing FROM unnest(?::text[]) WITH ORDINALITY AS v (value, n) ORDER BY n",
                                           [.text(PostgresArrayLiteral.of(values))])
        #expect(try back.map { try $0.decodeIfPresent("value", as: String.self) } == Self.awkwardTexts.map(Optional.some) + [nil])
        let numbers: [DatabaseValue] = [.integer(0), .integer(-1), .integer(.max), .integer(.min), .null]
        let numbersBack = try connection.fetchAll("SELECT value FROM unnest(?::bigint[]) WITH ORDINALITY AS v (value, n) ORDER BY n",
                                                  [.text(PostgresArrayLiteral.of(numbers))])
        #expect(try numbersBack.map { try $0.decodeIfPresent("value", as: Int64.self) } == [0, -1, .max, .min, nil])
        let bytes: [DatabaseValue] = [.blob([0, 1, 0xfe, 0xff]), .blob([])]
        let bytesBack = try connection.fetchAll("SELECT value FROM unnest(?::bytea[]) WITH ORDINALITY AS v (value, n) ORDER BY n",
                                                [.text(PostgresArrayLiteral.of(bytes))])
        #expect(bytesBack.map { $0[0] } == bytes)
    }

    /// Many sends at once, so that groups form: some with flags, some with events, some with
    /// awkward texts, and a few whose ids are taken (by the same message, a retry, or another).
    /// Every send is answered as it would be alone; each stored message has its own flags and
    /// events and no other; event ids run from 1 without a gap, each after the one before.
    @Test func groupsOfSendsWriteWhatEachSendAloneWould() async throws {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: ManyWritersTests.migrations))
        defer { store.close() }
        _ = try await SharedRepositoryTests.send(store, SharedRepositoryTests.message("taken", by: "someone", text: "first"))
        let total = 400
        let outcomes = try await withThrowingTaskGroup(of: (Int, SendOutcome).self) { group in
            for index in 0..<total {
                group.addTask {
                    let text = Self.awkwardTexts[index % Self.awkwardTexts.count] + " \(index)"
                    // Of every 50, the 7th reuses the id taken before the run; the 6th and 8th send
                    // one same message (one makes it, the other is its retry).
                    let message = switch index % 50 {
                    case 7: SharedRepositoryTests.message("taken", by: "u\(index % 7)", text: text)
                    case 6, 8: SharedRepositoryTests.message("twice\(index / 50)", by: "twin", text: "again")
                    default: SharedRepositoryTests.message("m\(index)", by: "u\(index % 7)", text: text)
                    }
                    let flags = index % 3 == 0 ? [NewFlag(id: "f\(index)", messageID: message.id, channelID: message.channelID, reporterID: "system",
                                                          reason: "spam", details: text, ruleID: "r1", createdAt: message.createdAt)] : []
                    let events = index % 4 == 0 ? [NewEvent(type: "message.bounced", data: #"{"n":\#(index)}"#, createdAt: message.createdAt),
                                                   NewEvent(type: "message.flagged", data: #"{"n":\#(index),"second":true}"#, createdAt: message.createdAt)] : []
                    let outcome = try await withCheckedThrowingContinuation { continuation in
                        store.send(message, flags: flags, events: events, sender: Viewer(userID: message.userID, role: .user)) { continuation.resume(with: $0) }
                    }
                    return (index, outcome)
                }
            }
            return try await group.reduce(into: [Int: SendOutcome]()) { $0[$1.0] = $1.1 }
        }
        let connection = try PostgresConnection(url: database.url)
        var expectedFlags = 0
        var expectedEvents: [String] = []
        for index in 0..<total {
            let outcome = try #require(outcomes[index])
            switch index % 50 {
            case 7:
                #expect(outcome == .conflict, "an id another message has: \(index)")
            case 6, 8:
                // Both send the same message: one of them made it, the other is its retry.
                if case .created = outcome { } else if case .replayed = outcome { } else { Issue.record("\(index): \(outcome)") }
            default:
                guard case .created(let stored) = outcome else { Issue.record("\(index): \(outcome)"); continue }
                #expect(stored.sequence > 0)
                let row = try #require(try connection.fetchOne("SELECT text, sequence FROM messages WHERE id = ?", [.text("m\(index)")]))
                #expect(try row.decodeIfPresent("text", as: String.self) == Self.awkwardTexts[index % Self.awkwardTexts.count] + " \(index)")
                #expect(try row.decodeIfPresent("sequence", as: Int64.self) == stored.sequence)
            }
        }
        for index in 0..<total where ![6, 7, 8].contains(index % 50) {
            if index % 3 == 0 { expectedFlags += 1 }
            if index % 4 == 0 { expectedEvents += [#"{"n":\#(index)}"#, #"{"n":\#(index),"second":true}"#] }
        }
        // Of each pair that sent one message twice, the one that made it wrote its flags and events.
        for pair in stride(from: 6, to: total, by: 50) {
            let made = [pair, pair + 2].filter { if case .created = outcomes[$0]! { true } else { false } }
            #expect(made.count == 1, "one of \(pair) and \(pair + 2) made the message")
            if let maker = made.first {
                if maker % 3 == 0 { expectedFlags += 1 }
                if maker % 4 == 0 { expectedEvents += [#"{"n":\#(maker)}"#, #"{"n":\#(maker),"second":true}"#] }
            }
        }
        let flags = try connection.fetchAll("SELECT f.details, f.author_id, m.user_id, m.text FROM flags f JOIN messages m ON m.id = f.message_id")
        #expect(flags.count == expectedFlags, "each stored message's flags and no other")
        for flag in flags {
            #expect(try flag.decode("author_id", as: String.self) == flag.decode("user_id", as: String.self))
        }
        #expect(try connection.fetchValue("SELECT count(*) FROM review_queue", as: Int.self) == expectedFlags, "the triggers saw each flag")
        let events = try connection.fetchAll("SELECT id, data FROM events ORDER BY id")
        #expect(try events.map { try $0.decode("id", as: Int64.self) } == Array(1...Int64(events.count)), "ids without a gap")
        #expect(Set(try events.map { try $0.decode("data", as: String.self) }) == Set(expectedEvents))
        #expect(events.count == expectedEvents.count)
        // A message's two events are next to each other, in the order the send gave them.
        let ids = Dictionary(uniqueKeysWithValues: try events.map { (try $0.decode("data", as: String.self), try $0.decode("id", as: Int64.self)) })
        for data in expectedEvents where data.hasSuffix("}") && !data.contains("second") {
            let second = String(data.dropLast()) + #","second":true}"#
            #expect(ids[second] == ids[data].map { $0 + 1 }, "\(data)")
        }
        #expect(try connection.fetchValue("SELECT last FROM event_sequence", as: Int64.self) == Int64(events.count))
    }

    /// The writer runs a group's statements prepared; when the server no longer has them (what a
    /// pooler in transaction mode does, here a `DEALLOCATE` on the writer's own session), the
    /// group runs again unprepared and every send is stored, and the writer prepares no more.
    @Test func sendsAreStoredWhenTheServerForgetsThePreparedStatements() async throws {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: ManyWritersTests.migrations))
        defer { store.close() }
        @Sendable func preparedCount() async throws -> Int {
            try await store.write { try $0.fetchValue("SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql", as: Int.self) ?? 0 }
        }
        @Sendable func sendAll(_ range: Range<Int>) async throws -> [SendOutcome] {
            try await withThrowingTaskGroup(of: SendOutcome.self) { group in
                for index in range {
                    group.addTask { try await SharedRepositoryTests.send(store, SharedRepositoryTests.message("m\(index)", by: "u\(index % 5)", text: "text \(index)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let before = try await sendAll(0..<50)
        #expect(try await preparedCount() > 0, "the writer prepares its groups' statements")
        try await store.write { try $0.executeScript("DEALLOCATE ALL") }
        let after = try await sendAll(50..<100)
        for outcome in before + after {
            guard case .created = outcome else { Issue.record("\(outcome)"); continue }
        }
        let connection = try PostgresConnection(url: database.url)
        #expect(try connection.fetchValue("SELECT count(*) FROM messages", as: Int.self) == 100)
        #expect(try await preparedCount() == 0, "prepares no more")
    }
}
