import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import JSON

/// The events of messages, flags and reviews. Their `data` shows the message as a moderator sees
/// it (the verdict included); a flag event's message carries the flag as `flag`.
package struct MessageEvents: Sendable {
    /// The language of the texts inside a message's JSON (a moderator's view has none of the
    /// author's notices, so this only has to be one).
    package let choice: Catalog.Choice

    private static let moderator = Identity(userID: "", role: .moderator)

    /// A new message's events: its state when moderation refused or shadowed it, and a rule's
    /// flag. A message delivered without moderation has none.
    package func ofSend(_ message: StoredMessage, flags: [NewFlag]) -> [NewEvent] {
        var events: [NewEvent] = []
        switch message.state {
        case .bounced: events.append(event(.messageBounced, message))
        case .removed: events.append(event(.messageRemoved, message))
        case .shadowed: events.append(event(.messageShadowed, message))
        case .delivered, .deleted: break
        }
        for flag in flags {
            events.append(event(.messageFlagged, message, flag: StoredFlag(filed: flag)))
        }
        return events
    }

    /// `type` (an edit, Send Anyway, a delete) of the message as the change left it; a message
    /// erased outright is told as it was, deleted.
    package func ofChange(_ type: EventType, before: StoredMessage, after: StoredMessage?) -> [NewEvent] {
        var message = after ?? before
        if after == nil { message.state = .deleted }
        return [event(type, message)]
    }

    /// A user's flag just filed, and the hiding of the message when it reached the threshold.
    package func ofFiling(_ filing: FlagFiling) -> [NewEvent] {
        var events = [event(.messageFlagged, filing.message, flag: filing.flag)]
        if filing.hides { events.append(event(.messageHidden, filing.message)) }
        return events
    }

    package func ofWithdrawal(_ flag: StoredFlag) -> [NewEvent] {
        [NewEvent(type: EventType.flagWithdrawn.rawValue, data: String(decoding: FlagJSON.json(flag), as: UTF8.self),
                  createdAt: Timestamp.now())]
    }

    /// `{"message_id","decision","resolution","resolved","moderator_id","message"}`.
    package func ofReview(_ result: ReviewResult, messageID: String, decision: String, resolution: String, moderatorID: String) -> [NewEvent] {
        var json: [UInt8] = []
        JSONText.appendMember(#"{"message_id":"#, messageID, to: &json)
        JSONText.appendMember(#","decision":"#, decision, to: &json)
        JSONText.appendMember(#","resolution":"#, resolution, to: &json)
        json.append(contentsOf: #","resolved":\#(result.resolved)"#.utf8)
        JSONText.appendMember(#","moderator_id":"#, moderatorID, to: &json)
        if let message = result.message {
            json.append(contentsOf: #","message":"#.utf8)
            json.append(contentsOf: messageJSON(message))
        }
        json.append(UInt8(ascii: "}"))
        return [NewEvent(type: EventType.reviewDecided.rawValue, data: String(decoding: json, as: UTF8.self), createdAt: Timestamp.now())]
    }

    /// `appeal.created` or `appeal.decided`: the appeal, with its message as a moderator sees it.
    package func ofAppeal(_ type: EventType, _ appeal: StoredAppeal, message: StoredMessage?) -> NewEvent {
        let json = AppealJSON.json(appeal, adding: message.map { [("message", messageJSON($0))] } ?? [])
        return NewEvent(type: type.rawValue, data: String(decoding: json, as: UTF8.self), createdAt: Timestamp.now())
    }

    private func event(_ type: EventType, _ message: StoredMessage, flag: StoredFlag? = nil) -> NewEvent {
        var json = messageJSON(message)
        if let flag {
            json.removeLast()  // the closing brace
            json.append(contentsOf: #","flag":"#.utf8)
            json.append(contentsOf: FlagJSON.json(flag))
            json.append(UInt8(ascii: "}"))
        }
        return NewEvent(type: type.rawValue, data: String(decoding: json, as: UTF8.self), createdAt: Timestamp.now())
    }

    private func messageJSON(_ message: StoredMessage) -> [UInt8] {
        MessageJSON.json(message, for: Self.moderator, choice: choice, alertActionsEnabled: false)
    }
}

extension Localization {
    /// The maker of message events, its texts in the default language.
    package var messageEvents: MessageEvents { MessageEvents(choice: defaultChoice) }
}
