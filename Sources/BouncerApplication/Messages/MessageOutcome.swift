import BouncerDomain
import BouncerModeration
import BouncerStore

/// What a verdict does to a message: its state, its text, and the system flag it files.
package struct MessageOutcome {
    package var state: MessageState
    package var text: String
    package var originalText: String?
    package var bounceAction: RuleAction?
    package var flagRule: String?
    package var moderation: String?

    package init(_ verdict: Verdict, text: String) {
        self.text = text
        state = MessageState(after: verdict.action)
        guard let action = verdict.action else {
            // Observed rules act on nothing, but moderators see what they found, and the scores.
            if !verdict.observed.isEmpty || !verdict.scores.isEmpty {
                moderation = ModerationRecord(verdict: verdict, originalText: text, flagged: false).json
            }
            return
        }
        if action.filesSystemFlag { flagRule = verdict.decidingRule?.ruleID }
        if action == .maskFlag {
            self.text = verdict.maskedText ?? text
            originalText = text
        }
        if action.isBounce { bounceAction = action }
        moderation = ModerationRecord(verdict: verdict, originalText: text, flagged: flagRule != nil).json
    }

    package func systemFlags(messageID: String, channelID: String, now: String) -> [NewFlag] {
        guard let flagRule else { return [] }
        return [NewFlag(id: TimeOrderedID.make(), messageID: messageID, channelID: channelID, reporterID: SystemFlag.reporterID,
                        reason: SystemFlag.ruleMatch, ruleID: flagRule, createdAt: now)]
    }
}
