import BouncerDomain
import BouncerStore
import Foundation
import Locking

/// Rate rules' marks shared by every instance (`rate_marks`), so a sender who spreads a flood over
/// instances is judged by all of it. Marks go in and earlier kin come back in one statement a
/// mark, on a connection of its own that does not wait for its commits to be flushed (the table is
/// unlogged: marks live for minutes). Records that arrive while one runs are run next, in order.
/// Should the database fail, the record fails with its error, and so does the send (503): a
/// message is never judged as if its sender had sent nothing before.
final class PostgresRateLedger: RateLedger {
    private struct Record: Sendable {
        let marks: [RateMark]
        let completion: @Sendable (Result<[[EarlierMark]], any Error>) -> Void
    }

    private let session: PostgresSession
    private let pending = PendingWrites<Record>()
    private let pruning = Periodic(every: .seconds(60))

    init(url: String) {
        session = PostgresSession(url: url, label: "bouncer.postgres.rate-marks")
    }

    func record(_ marks: [RateMark], completion: @escaping @Sendable (Result<[[EarlierMark]], any Error>) -> Void) {
        guard !marks.isEmpty else { return completion(.success([])) }
        let accepted = pending.add(Record(marks: marks, completion: completion)) {
            session.queue.async { self.drain() }
        }
        if !accepted { completion(.failure(PostgresError(sqlState: nil, message: "the store is closed"))) }
    }

    private func drain() {
        while true {
            let group = pending.nextGroup(limit: 1000)
            if group.isEmpty { return }
            for record in group {
                record.completion(Result { try session.runHere { connection in try record.marks.map { try Self.record($0, connection) } } })
            }
            pruneIfDue()
        }
    }

    /// `?1` user, `?2` rule, `?3` keys, `?4` the window's start, `?5` the message's id, `?6`
    /// weight, `?7` sketch, `?8` time. The earlier kin are read before the insert is seen.
    private static let sql = """
        WITH earlier AS (
            SELECT DISTINCT ON (message_id) weight, sketch FROM rate_marks
             WHERE user_id = ?1 AND rule_id = ?2 AND key = ANY(?3::bigint[]) AND at >= ?4::float8
        ), added AS (
            INSERT INTO rate_marks (user_id, rule_id, key, message_id, weight, sketch, at)
            SELECT ?1, ?2, k, ?5::bigint, ?6::int, ?7, ?8::float8 FROM unnest(?3::bigint[]) AS k
        )
        SELECT weight, sketch FROM earlier
        """

    private static func record(_ mark: RateMark, _ connection: PostgresConnection) throws -> [EarlierMark] {
        let keys = "{" + mark.keys.map { String(Int64(bitPattern: $0)) }.joined(separator: ",") + "}"
        let sketch: DatabaseValue = mark.sketch.isEmpty ? .null : .text(mark.sketch.map(hex).joined())
        let rows = try connection.fetchAll(sql, [.text(mark.userID), .text(mark.ruleID), .text(keys), .real(mark.at - mark.window),
                                                 .integer(Int64.random(in: 1...Int64.max)), .integer(Int64(mark.weight)), sketch,
                                                 .real(mark.at)])
        return try rows.map { row in
            EarlierMark(weight: Int(try row.decode("weight", as: Int64.self)),
                        likeness: EarlierMark.likeness(of: parse(try row.decodeIfPresent("sketch", as: String.self)), to: mark.sketch))
        }
    }

    private static func hex(_ slot: UInt32) -> String {
        let digits = String(slot, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func parse(_ text: String?) -> [UInt32] {
        guard let text, text.utf8.count % 8 == 0 else { return [] }
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count, by: 8).compactMap { UInt32(String(decoding: bytes[$0..<$0 + 8], as: UTF8.self), radix: 16) }
    }

    /// Once a minute, drops marks older than the longest window any rule may have.
    private func pruneIfDue() {
        guard pruning.isDue() else { return }
        _ = try? session.runHere { connection in
            try connection.execute("DELETE FROM rate_marks WHERE at < ?", [.real(Date().timeIntervalSince1970 - Double(RuleParams.maxWindowSeconds))])
        }
    }

    func close() { session.close() }
}
