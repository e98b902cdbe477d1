import BouncerDomain
import BouncerSQLite
import BouncerStore
import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerPostgres

/// The repositories written once for both stores (`SQLStore`), run against each: the same calls
/// must give the same answers on SQLite and on PostgreSQL.
@Suite struct SharedRepositoryTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    typealias Repositories = SQLStore & SettingsRepository & LocalizationOverrideRepository & StoreHealthRepository
        & ModerationRepository & FlagRepository & RuleRepository & MessageRepository & RuleStatsRepository

    /// Runs `scenario` on a fresh SQLite store and a fresh PostgreSQL one.
    static func onBothStores(_ scenario: (any Repositories) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let sqlite = try SQLiteStore(path: directory.path("shared.sqlite3"),
                                     migrations: try Migration.load(directory: repository.appendingPathComponent("migrations")))
        defer { sqlite.close() }
        try await scenario(sqlite)
        let database = try PostgresTestDatabase()
        let postgres = try PostgresStore(url: database.url,
                                         migrations: try Migration.load(directory: repository.appendingPathComponent("migrations/postgres")))
        defer { postgres.close() }
        try await scenario(postgres)
    }

    static func addMessage<S: SQLStore>(_ store: S, id: String, author: String, state: MessageState = .delivered) async throws {
        try await store.write { connection in
            try connection.execute("""
                INSERT INTO messages (id, channel_id, user_id, text, state, created_at, updated_at)
                VALUES (?, 'messaging:room', ?, 'some text', ?, '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z')
                """, [.text(id), .text(author), state.databaseValue])
        }
    }

    static func audit(_ action: String, _ target: String) -> AuditEntry {
        AuditEntry(id: TimeOrderedID.make(), actorID: "mod", action: action, targetType: "user", targetID: target,
                   createdAt: Timestamp.now())
    }

    @Test func settingsOverridesAndReadiness() async throws {
        try await Self.onBothStores { store in
            try await store.checkReady()
            #expect(try await store.loadSettings() == SettingsSnapshot(sequence: 0, json: nil))
            #expect(try await store.saveSettings(#"{"a":1}"#, by: "root") == 1)
            #expect(try await store.saveSettings(#"{"a":2}"#, by: "root") == 2)
            #expect(try await store.loadSettings() == SettingsSnapshot(sequence: 2, json: #"{"a":2}"#))
            let set = try await store.setOverrides(locale: "de", strings: ["k1": "eins", "k2": "zwei"], by: "root")
            #expect(set.overrides == ["de": ["k1": "eins", "k2": "zwei"]])
            let deleted = try await store.deleteOverride(locale: "de", key: "k1")
            #expect(deleted?.overrides == ["de": ["k2": "zwei"]])
            #expect(deleted.map(\.sequence) ?? 0 > set.sequence)
            #expect(try await store.deleteOverride(locale: "de", key: "k1") == nil)
            let all = try await store.allOverrides()
            #expect(all.overrides == ["de": ["k2": "zwei"]])
            #expect(all.sequence == deleted?.sequence, "a read has the version of the last change")
            let versions = try await store.changeVersions()
            #expect(versions == [.settings: 2, .overrides: all.sequence, .rules: 0, .bans: 0, .classifier: 0])
        }
    }

    @Test func bansAndTheAuditLog() async throws {
        try await Self.onBothStores { store in
            let now = Timestamp.now()
            let first = try await store.ban(StoredBan(userID: "troll", reason: "spam", shadow: true, expiresAt: nil, createdBy: "mod",
                                                      createdAt: now), audit: Self.audit("user.ban", "troll"))
            let second = try await store.ban(StoredBan(userID: "gone", reason: nil, shadow: false, expiresAt: "2000-01-01T00:00:00.000Z",
                                                       createdBy: "mod", createdAt: now), audit: Self.audit("user.ban", "gone"))
            #expect(second > first)
            let snapshot = try await store.allActiveBans(now: now)
            #expect(snapshot.bans.map(\.userID) == ["troll"] && snapshot.sequence == second)
            #expect(try await store.activeBan(userID: "troll", now: now)?.shadow == true)
            #expect(try await store.activeBan(userID: "gone", now: now) == nil, "an expired ban no longer applies")
            #expect(try await store.activeBans(now: now, after: nil, limit: 10).map(\.userID) == ["troll"])
            #expect(try await store.unban(userID: "troll", audit: Self.audit("user.unban", "troll")) == second + 1)
            #expect(try await store.unban(userID: "troll", audit: Self.audit("user.unban", "troll")) == nil)
            #expect(try await store.changeVersions()[.bans] == second + 1)
            let entries = try await store.auditEntries(AuditQuery(actorID: "mod", action: nil, after: nil, limit: 10))
            #expect(entries.map(\.action) == ["user.ban", "user.ban", "user.unban"])
        }
    }

    @Test func flagsOnePerReporterHiddenAtTheThresholdAndReviewed() async throws {
        try await Self.onBothStores { store in
            try await Self.addMessage(store, id: "m1", author: "alice")
            try await Self.addMessage(store, id: "secret", author: "alice", state: .bounced)
            func flag(_ reporter: String, _ message: String = "m1") async throws -> FlagOutcome {
                try await store.fileFlag(messageID: message, reporter: Viewer(userID: reporter, role: .user), reason: "spam", details: nil,
                                         custom: nil, id: TimeOrderedID.make(), now: Timestamp.now(), hideThreshold: 2)
            }
            guard case .created(let first) = try await flag("bob") else { Issue.record("bob's flag is filed"); return }
            #expect(try await flag("bob") == .existing(first), "one open flag per reporter and message")
            #expect(try await flag("alice") == .ownMessage)
            #expect(try await flag("bob", "secret") == .messageNotFound, "a message bob may not see cannot be flagged")
            _ = try await flag("carol")
            #expect(try await store.openFlagCount() == 2)
            let queue = try await store.reviewQueue(channelID: nil, reason: nil, order: .flagCount, offset: 0, limit: 10)
            #expect(queue.map(\.message.id) == ["m1"])
            #expect(queue.first?.message.hidden == true, "hidden once two users flagged it")
            #expect(queue.first?.countsByReason == ["spam": 2])
            let now = Timestamp.now()
            guard let snapshot = try await store.reviewSnapshot(messageID: "m1", now: now) else { Issue.record("m1 is there"); return }
            #expect(snapshot.openFlags == 2 && snapshot.author.activeStrikes == 0 && snapshot.author.ban == nil)
            var removed = snapshot.message
            removed.state = .removed
            removed.hidden = false
            removed.removedBy = "mod"
            removed.updatedAt = now
            let plan = ReviewPlan(snapshot: snapshot, resolution: "message_removed", moderatorID: "mod", message: removed, ruleReviews: [],
                                  ruleOutcome: "confirmed", audit: Self.audit("flag.review", "m1"), strike: nil, strikeBan: nil,
                                  moderatorBan: nil, events: [], result: ReviewResult(message: removed, resolved: 2))
            // A moderator may still flag the hidden message: a flag filed since the snapshot.
            let late = try await store.fileFlag(messageID: "m1", reporter: Viewer(userID: "dave", role: .moderator), reason: "spam", details: nil,
                                                custom: nil, id: TimeOrderedID.make(), now: Timestamp.now(), hideThreshold: 2)
            guard case .created = late else { Issue.record("dave's flag is filed: \(late)"); return }
            guard case .stale = try await store.applyReview(plan) else { Issue.record("a flag filed since the snapshot makes the plan stale"); return }
            #expect(try await store.message(id: "m1")?.state == .delivered, "nothing of a stale plan is written")
            guard let again = try await store.reviewSnapshot(messageID: "m1", now: now) else { Issue.record("m1 is there"); return }
            var replanned = plan
            replanned.snapshot = again
            replanned.result.resolved = again.openFlags
            guard case .applied(let reviewed) = try await store.applyReview(replanned) else { Issue.record("a fresh plan applies"); return }
            #expect(reviewed.resolved == 3)
            #expect(try await store.message(id: "m1") == removed)
            #expect(try await store.reviewQueue(channelID: nil, reason: nil, order: .oldest, offset: 0, limit: 10).isEmpty)
            #expect(try await store.flags(FlagQuery(state: .resolved)).count == 3)
        }
    }

    static func rule(_ id: String, _ kind: RuleKind, _ pattern: String, _ action: RuleAction?, name: String = "") -> StoredRule {
        StoredRule(RuleDefinition(id: id, name: name.isEmpty ? pattern : name, kind: kind, pattern: pattern, action: action,
                                  channels: ["messaging:*"], priority: 3, inflections: kind == .word ? false : nil),
                   createdAt: "2026-12-01T00:00:00.000Z", updatedAt: "2026-12-01T00:00:00.000Z", createdBy: "root")
    }

    /// Hits written read back as written: PostgreSQL's `sum` of a BIGINT column is NUMERIC, which
    /// read as no integer, so every rule's stored hits read as 0 there.
    @Test func ruleHitsAreSummedOverHours() async throws {
        try await Self.onBothStores { store in
            _ = try await store.insertRules([Self.rule("r1", .word, "darn", .bounce)])
            try await store.addRuleHits([RuleHitCount(ruleID: "r1", hour: 490_000, enforced: 2, observed: 1),
                                         RuleHitCount(ruleID: "r1", hour: 490_001, enforced: 3, observed: 0)])
            try await store.addRuleHits([RuleHitCount(ruleID: "r1", hour: 490_001, enforced: 1, observed: 4)])
            let stats = try #require(try await store.ruleStats(StatsPeriod(), ruleID: "r1")["r1"])
            #expect(stats.enforcedHits == 6)
            #expect(stats.observedHits == 5)
        }
    }

    @Test func rulesListedFilteredChangedAndSnapshotInOrder() async throws {
        try await Self.onBothStores { store in
            let first = try await store.insertRules([Self.rule("r1", .word, "darn", .bounce), Self.rule("r2", .phrase, "100% sure_thing", .flag),
                                                     Self.rule("r3", .allow, "scunthorpe", nil)])
            #expect(first.rules.map(\.id) == ["r1", "r2", "r3"])
            #expect(first.rules.first == Self.rule("r1", .word, "darn", .bounce).definition.withStoreTimesEmpty(),
                    "the snapshot has what matching needs, read back as written")
            #expect(try await store.rules(RuleQuery(kind: .phrase)).map(\.id) == ["r2"])
            #expect(try await store.rules(RuleQuery(text: "0% s")).map(\.id) == ["r2"], "% in a search is a character")
            #expect(try await store.rules(RuleQuery(text: "d_rn")).isEmpty, "_ in a search is a character too, not any one")
            #expect(try await store.rules(RuleQuery(after: "r1", limit: 1)).map(\.id) == ["r2"])
            var changed = try #require(try await store.rule(id: "r1"))
            #expect(changed == Self.rule("r1", .word, "darn", .bounce))
            changed.action = .remove
            changed.enabled = false
            let second = try #require(try await store.updateRule(changed))
            #expect(second.sequence > first.sequence)
            #expect(try await store.rule(id: "r1")?.action == .remove)
            #expect(try await store.rules(RuleQuery(enabled: false)).map(\.id) == ["r1"])
            let third = try #require(try await store.deleteRule(id: "r2"))
            #expect(third.rules.map(\.id) == ["r1", "r3"])
            #expect(try await store.deleteRule(id: "r2") == nil)
            #expect(try await store.allRules().rules.map(\.id) == ["r1", "r3"])
        }
    }

    static func message(_ id: String, by user: String, state: MessageState = .delivered, parent: String? = nil,
                        text: String = "hello") -> StoredMessage {
        StoredMessage(id: id, channelID: "messaging:room", userID: user, text: text, originalText: nil, state: state, parentID: parent,
                      custom: nil, moderation: nil, bounceAction: state == .bounced ? .bounce : nil, flagged: false, edited: false,
                      createdAt: "2026-12-01T00:00:00.000Z", updatedAt: "2026-12-01T00:00:00.000Z")
    }

    static func send(_ store: any Repositories, _ message: StoredMessage, flags: [NewFlag] = []) async throws -> SendOutcome {
        try await withCheckedThrowingContinuation { continuation in
            store.send(message, flags: flags, sender: Viewer(userID: message.userID, role: .user)) { continuation.resume(with: $0) }
        }
    }

    @Test func messagesSentRepliedPagedChangedAndErased() async throws {
        try await Self.onBothStores { store in
            guard case .created(let first) = try await Self.send(store, Self.message("m1", by: "alice")) else {
                Issue.record("m1 is created"); return
            }
            #expect(first.sequence > 0)
            #expect(try await Self.send(store, Self.message("m1", by: "alice")) == .replayed(try #require(try await store.message(id: "m1"))))
            #expect(try await Self.send(store, Self.message("m1", by: "bob")) == .conflict)
            _ = try await Self.send(store, Self.message("hidden", by: "carol", state: .bounced))
            #expect(try await Self.send(store, Self.message("r1", by: "bob", parent: "hidden")) == .parentNotFound)
            guard case .created = try await Self.send(store, Self.message("r2", by: "bob", parent: "m1")) else {
                Issue.record("a reply to a visible message is created"); return
            }
            let flag = NewFlag(id: TimeOrderedID.make(), messageID: "m3", channelID: "messaging:room", reporterID: SystemFlag.reporterID,
                               reason: SystemFlag.ruleMatch, ruleID: "r", createdAt: Timestamp.now())
            _ = try await Self.send(store, Self.message("m3", by: "alice"), flags: [flag])
            #expect(try await store.flags(FlagQuery(authorID: "alice")).map(\.messageID) == ["m3"], "the flag knows the author")

            let bob = Viewer(userID: "bob", role: .user)
            let everything = try await store.channelMessages("messaging:room", before: nil, limit: 10, viewer: Viewer(userID: "mod", role: .moderator))
            #expect(everything.map(\.id) == ["m3", "r2", "hidden", "m1"])
            let firstPage = try await store.channelMessages("messaging:room", before: nil, limit: 2, viewer: bob)
            #expect(firstPage.map(\.id) == ["m3", "r2"])
            let secondPage = try await store.channelMessages("messaging:room", before: firstPage.last?.sequence, limit: 2, viewer: bob)
            #expect(secondPage.map(\.id) == ["m1"], "bob does not see carol's bounced message")

            let current = try #require(try await store.message(id: "m1"))
            var updated = current
            updated.text = "hello again"
            updated.edited = true
            guard case .applied(let edited) = try await store.apply(.update(updated, keepRevision: true, flags: []), to: current, events: []) else {
                Issue.record("an edit planned on the message as it is applies"); return
            }
            #expect(edited?.text == "hello again" && edited?.sequence == first.sequence)
            #expect(try await store.revisions(of: "m1", after: 0, limit: 10).map(\.text) == ["hello"])
            guard case .stale = try await store.apply(.erase, to: current, events: [], audit: Self.audit("message.delete", "m1")) else {
                Issue.record("a change planned on the message before the edit is stale"); return
            }
            #expect(try await store.message(id: "m1")?.text == "hello again")
            #expect(try await store.auditEntries(AuditQuery(actorID: "mod", action: "message.delete", after: nil, limit: 10)).isEmpty,
                    "a stale plan writes no audit entry")
            let r2 = try #require(try await store.message(id: "r2"))
            guard case .applied(nil) = try await store.apply(.erase, to: r2, events: [], audit: Self.audit("message.delete", "r2")) else {
                Issue.record("r2 is erased"); return
            }
            #expect(try await store.message(id: "r2") == nil)
            #expect(try await store.auditEntries(AuditQuery(actorID: "mod", action: "message.delete", after: nil, limit: 10))
                .map(\.targetID) == ["r2"], "the erase's audit entry, in its transaction")
        }
    }
}

private extension RuleDefinition {
    /// The snapshot's rule: the definition, without the times and author a start does not read.
    func withStoreTimesEmpty() -> StoredRule { StoredRule(self, createdAt: "", updatedAt: "", createdBy: "") }
}
