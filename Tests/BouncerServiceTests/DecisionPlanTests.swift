import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import Testing
@testable import BouncerApplication
@testable import BouncerService

/// Reviews and appeal decisions are plans, pure functions of what the store was read to hold: each
/// is checked here with no store at all.
@Suite struct DecisionPlanTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)
    static let nowText = Timestamp.format(now)
    static let moderator = Identity(userID: "mod", role: .moderator)
    static let events = MessageEvents(choice: Catalog().choice(for: "en")!)
    /// Two strikes ban for an hour, three for good.
    static let policy = StrikePolicy(window_days: 30, steps: [.init(strikes: 2, ban_seconds: 3600), .init(strikes: 3, ban_seconds: nil)])

    static func message(_ state: MessageState = .delivered, hidden: Bool = true) -> StoredMessage {
        var message = StoredMessage(id: "m1", channelID: "messaging:room", userID: "alice", text: "hello", originalText: nil, state: state,
                                    parentID: nil, custom: nil,
                                    moderation: #"{"action":"flag","rules":[{"id":"r1","name":"n","kind":"word","matched":[]}],"original_text":"hello","flagged":true,"observed":[{"id":"r2","name":"o","kind":"word","matched":[]}]}"#,
                                    bounceAction: nil, flagged: true, edited: false, createdAt: "2026-12-01T00:00:00.000Z",
                                    updatedAt: "2026-12-01T00:00:00.000Z")
        message.hidden = hidden
        return message
    }

    static func standing(strikes: Int = 0, messageStrike: StoredStrike? = nil, ban: StoredBan? = nil, cause: BanCause = .none) -> Standing {
        Standing(activeStrikes: strikes, messageStrike: messageStrike, ban: ban, banCause: cause)
    }

    static func review(_ decision: ReviewPlanner.Decision, seconds: Int? = nil, policy: StrikePolicy? = policy) -> ReviewPlanner {
        ReviewPlanner(decision: decision, note: "spam", banSeconds: seconds, moderator: moderator, policy: policy, events: events)
    }

    @Test func aDismissalShowsTheMessageAgainAndStrikesNobody() throws {
        let snapshot = ReviewSnapshot(message: Self.message(), openFlags: 3, author: Self.standing(), now: Self.nowText)
        let plan = try Self.review(.dismiss).plan(snapshot, now: Self.now)
        #expect(plan.message.hidden == false && plan.message.state == .delivered)
        #expect(plan.message.updatedAt == snapshot.message.updatedAt, "showing it again is no change of the message")
        #expect(plan.strike == nil && plan.strikeBan == nil && plan.moderatorBan == nil)
        #expect(plan.ruleReviews == ["r1", "r2"] && plan.ruleOutcome == "dismissed")
        #expect(plan.result.resolved == 3)
        #expect(plan.events.map(\.type) == ["review.decided"])
    }

    @Test func aRemovalStrikesTheAuthorAndTheSecondStrikeBans() throws {
        let snapshot = ReviewSnapshot(message: Self.message(), openFlags: 1, author: Self.standing(strikes: 1), now: Self.nowText)
        let plan = try Self.review(.removeMessage).plan(snapshot, now: Self.now)
        #expect(plan.message.state == .removed && plan.message.removedBy == "mod" && plan.message.updatedAt == Self.nowText)
        let strike = try #require(plan.strike)
        #expect(strike.userID == "alice" && strike.messageID == "m1" && strike.reason == "message_removed")
        let ban = try #require(plan.strikeBan)
        #expect(ban.ban.expiresAt == Timestamp.format(Self.now.addingTimeInterval(3600)) && ban.ban.createdBy == "system")
        #expect(ban.cause == BanCause(strikeID: strike.id, strikeStep: 2))
        #expect(ban.events.map(\.type) == ["user.banned"] && ban.audit.action == "user.ban")
        #expect(plan.result.strike.added && plan.result.strike.ban == ban.ban)
    }

    @Test func aMessageWithAStrikeIsNotStruckTwice() throws {
        let existing = StoredStrike(id: "s1", userID: "alice", reason: "message_removed", messageID: "m1", createdAt: Self.nowText,
                                    expiresAt: "2027-01-01T00:00:00.000Z")
        let snapshot = ReviewSnapshot(message: Self.message(), openFlags: 1, author: Self.standing(strikes: 1, messageStrike: existing),
                                      now: Self.nowText)
        let plan = try Self.review(.removeMessage).plan(snapshot, now: Self.now)
        #expect(plan.strike == nil && plan.strikeBan == nil)
        #expect(plan.result.strike == StrikeOutcome(added: false, ban: nil, bansVersion: nil, strikeID: "s1"))
    }

    @Test func aLongerBanInForceStandsAgainstThePolicysStep() throws {
        let forGood = StoredBan(userID: "alice", reason: "x", shadow: false, expiresAt: nil, createdBy: "mod", createdAt: Self.nowText)
        let snapshot = ReviewSnapshot(message: Self.message(), openFlags: 1, author: Self.standing(strikes: 1, ban: forGood), now: Self.nowText)
        let plan = try Self.review(.removeMessage).plan(snapshot, now: Self.now)
        #expect(plan.strike != nil && plan.strikeBan == nil)
    }

    @Test func banAuthorWritesTheModeratorsBanUnlessThePolicysLastsAsLong() throws {
        let snapshot = ReviewSnapshot(message: Self.message(), openFlags: 1, author: Self.standing(strikes: 2), now: Self.nowText)
        // The third strike bans for good: a day's ban from the moderator adds nothing.
        let shorter = try Self.review(.banAuthor, seconds: 86_400).plan(snapshot, now: Self.now)
        #expect(shorter.strikeBan?.ban.expiresAt == nil && shorter.moderatorBan == nil)
        // No policy: the moderator's ban, caused by the review's strike.
        let alone = try Self.review(.banAuthor, seconds: 86_400, policy: nil).plan(snapshot, now: Self.now)
        let ban = try #require(alone.moderatorBan)
        #expect(ban.ban.createdBy == "mod" && ban.cause.strikeID == alone.strike?.id && ban.cause.strikeStep == nil)
        #expect(alone.result.ban == ban.ban && alone.message.state == .delivered && alone.message.hidden == false)
    }

    @Test func aDeletedMessageStaysAsItsAuthorLeftIt() throws {
        let snapshot = ReviewSnapshot(message: Self.message(.deleted), openFlags: 1, author: Self.standing(), now: Self.nowText)
        let plan = try Self.review(.removeMessage).plan(snapshot, now: Self.now)
        #expect(plan.message == snapshot.message)
    }

    static func appeal(_ target: String, user: String = "alice", state: String = "open") -> StoredAppeal {
        StoredAppeal(id: "a1", targetType: target, targetID: target == "ban" ? user : "m1", userID: user, reason: "please",
                     createdAt: "2026-12-01T00:00:00.000Z")
            .with(state: state)
    }

    static func decide(overturn: Bool, by moderator: Identity = moderator) -> AppealPlanner {
        AppealPlanner(overturn: overturn, note: "ok", moderator: moderator, policy: policy, events: events)
    }

    @Test func nobodyDecidesTheirOwnCaseOrOneDecidedAlready() {
        let own = AppealSnapshot(appeal: Self.appeal("ban", user: "mod"), message: nil, appellant: Self.standing(), now: Self.nowText)
        #expect(throws: AppealDecisionRefusal.ownCase) { try Self.decide(overturn: true).plan(own, now: Self.now) }
        let decided = AppealSnapshot(appeal: Self.appeal("ban", state: "upheld"), message: nil, appellant: Self.standing(), now: Self.nowText)
        #expect(throws: AppealDecisionRefusal.alreadyDecided) { try Self.decide(overturn: true).plan(decided, now: Self.now) }
    }

    @Test func anOverturnDeliversTakesBackTheStrikeAndLiftsThePolicysBanBelowItsStep() throws {
        let strike = StoredStrike(id: "s2", userID: "alice", reason: "message_removed", messageID: "m1", createdAt: Self.nowText,
                                  expiresAt: "2099-01-01T00:00:00.000Z")
        let ban = StoredBan(userID: "alice", reason: "strikes", shadow: false, expiresAt: "2099-01-01T00:00:00.000Z", createdBy: "system",
                            createdAt: Self.nowText)
        let snapshot = AppealSnapshot(appeal: Self.appeal("message"), message: Self.message(.removed, hidden: false),
                                      appellant: Self.standing(strikes: 2, messageStrike: strike, ban: ban,
                                                               cause: BanCause(strikeID: "s2", strikeStep: 2)),
                                      now: Self.nowText)
        let plan = try Self.decide(overturn: true).plan(snapshot, now: Self.now)
        #expect(plan.appeal.state == "overturned" && plan.appeal.decidedBy == "mod")
        #expect(plan.message?.state == .delivered && plan.dismissedRules == ["r1", "r2"] && plan.revokedStrikeID == "s2")
        let lifted = try #require(plan.liftedBan)
        #expect(lifted.audit?.actorID == "system" && lifted.events.map(\.type) == ["user.unbanned"])
        #expect(plan.result.liftedStrikeBan)
        #expect(plan.events.map(\.type) == ["appeal.decided"], "the strike ban's lifting has its own event")
    }

    @Test func anExpiredStrikeTakenBackLeavesTheCountAndTheBan() throws {
        let expired = StoredStrike(id: "s0", userID: "alice", reason: "message_removed", messageID: "m1", createdAt: "2026-01-01T00:00:00.000Z",
                                   expiresAt: "2026-02-01T00:00:00.000Z")
        let ban = StoredBan(userID: "alice", reason: "strikes", shadow: false, expiresAt: nil, createdBy: "system", createdAt: Self.nowText)
        let snapshot = AppealSnapshot(appeal: Self.appeal("message"), message: Self.message(.removed, hidden: false),
                                      appellant: Self.standing(strikes: 2, messageStrike: expired, ban: ban,
                                                               cause: BanCause(strikeID: "s9", strikeStep: 2)),
                                      now: Self.nowText)
        let plan = try Self.decide(overturn: true).plan(snapshot, now: Self.now)
        #expect(plan.revokedStrikeID == "s0" && plan.liftedBan == nil)
    }

    @Test func anUpheldRemovalIsAStrikeAndAnOverturnedBanIsLiftedWithItsStrike() throws {
        let removal = AppealSnapshot(appeal: Self.appeal("message"), message: Self.message(.removed, hidden: false),
                                     appellant: Self.standing(strikes: 1), now: Self.nowText)
        let upheld = try Self.decide(overturn: false).plan(removal, now: Self.now)
        #expect(upheld.strike?.reason == "appeal_upheld" && upheld.strikeBan?.cause.strikeStep == 2)
        #expect(upheld.message == removal.message && upheld.liftedBan == nil)

        let ban = StoredBan(userID: "alice", reason: "spam", shadow: false, expiresAt: nil, createdBy: "mod", createdAt: Self.nowText)
        let banAppeal = AppealSnapshot(appeal: Self.appeal("ban"), message: nil,
                                       appellant: Self.standing(strikes: 1, ban: ban, cause: BanCause(strikeID: "s5", strikeStep: nil)),
                                       now: Self.nowText)
        let overturned = try Self.decide(overturn: true).plan(banAppeal, now: Self.now)
        #expect(overturned.revokedStrikeID == "s5" && overturned.liftedBan?.userID == "alice" && overturned.liftedBan?.audit == nil)
        #expect(overturned.events.map(\.type) == ["appeal.decided", "user.unbanned"])
        let kept = try Self.decide(overturn: false).plan(banAppeal, now: Self.now)
        #expect(kept.result.ban == ban && kept.liftedBan == nil && kept.strike == nil)
    }

    @Test func aFlagHidesTheMessageWhenItBringsTheReportersToTheThreshold() throws {
        let bob = Viewer(userID: "bob", role: .user)
        func decide(_ message: StoredMessage, others: Int, flag: StoredFlag? = nil, by reporter: Viewer = bob) -> FlagFiling.Decision {
            let snapshot = FlagSnapshot(message: message, reporterFlag: flag, otherReporters: others)
            return FlagFiling.decide(snapshot, reporter: reporter, reason: "spam", details: nil, custom: nil, id: "f1", now: Self.nowText,
                                     hideThreshold: 3)
        }
        guard case .file(let below) = decide(Self.message(hidden: false), others: 1) else { Issue.record("bob's flag is filed"); return }
        #expect(!below.hides && below.message.hidden == false && below.flag.reporterID == "bob")
        guard case .file(let reaching) = decide(Self.message(hidden: false), others: 2) else { Issue.record("bob's flag is filed"); return }
        #expect(reaching.hides && reaching.message.hidden)
        guard case .answer(.messageNotFound) = decide(Self.message(hidden: true), others: 2) else {
            Issue.record("a hidden message is not bob's to see"); return
        }
        guard case .answer(.ownMessage) = decide(Self.message(hidden: false), others: 0, by: Viewer(userID: "alice", role: .user)) else {
            Issue.record("alice's own message"); return
        }
        guard case .answer(.messageNotFound) = decide(Self.message(.deleted, hidden: false), others: 0) else {
            Issue.record("a tombstone has nothing to report"); return
        }
        guard case .file(let first) = decide(Self.message(hidden: false), others: 0),
              case .answer(.existing(first.flag)) = decide(Self.message(hidden: false), others: 0, flag: first.flag) else {
            Issue.record("bob's open flag is the answer"); return
        }
    }

    @Test func anAppealIsFiledOnceForAMessageItsAuthorMayAppeal() {
        let alice = Viewer(userID: "alice", role: .user)
        func decide(_ state: MessageState, appealed: Bool = false, by author: Viewer = alice) -> NewAppeal.Decision {
            NewAppeal.ofMessage(AppealTargetSnapshot(message: Self.message(state, hidden: false), ban: nil, appealed: appealed),
                                messageID: "m1", author: author, reason: "why", id: "a1", now: Self.nowText)
        }
        guard case .file(let filing) = decide(.removed) else { Issue.record("a removed message is appealed"); return }
        #expect(filing.appeal.targetType == "message" && filing.appeal.userID == "alice")
        guard case .answer(.exists) = decide(.bounced, appealed: true) else { Issue.record("once for good"); return }
        guard case .answer(.notAppealable) = decide(.delivered) else { Issue.record("nothing to appeal"); return }
        guard case .answer(.notAppealable) = decide(.delivered, by: Viewer(userID: "bob", role: .user)) else {
            Issue.record("not bob's"); return
        }
        let shadow = StoredBan(userID: "alice", reason: nil, shadow: true, expiresAt: nil, createdBy: "mod", createdAt: Self.nowText)
        guard case .answer(.notFound) = NewAppeal.ofBan(AppealTargetSnapshot(message: nil, ban: shadow, appealed: false), userID: "alice",
                                                        reason: "why", id: "a2", now: Self.nowText) else {
            Issue.record("a shadow ban is not one its user knows of"); return
        }
    }
}

private extension StoredAppeal {
    func with(state: String) -> StoredAppeal {
        var appeal = self
        appeal.state = state
        return appeal
    }
}
