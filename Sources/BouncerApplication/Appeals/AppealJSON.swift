import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import JSON

/// Appeals and strikes as the API shows them (absent optional members are null).
package enum AppealJSON {
    package struct Appeal: Encodable {
        package var id, target_type, target_id, user_id, reason, state, created_at: String
        @Nullable package var decided_by: String?
        @Nullable package var decided_at: String?
        @Nullable package var note: String?

        package init(_ appeal: StoredAppeal) {
            id = appeal.id; target_type = appeal.targetType; target_id = appeal.targetID; user_id = appeal.userID
            reason = appeal.reason; state = appeal.state; created_at = appeal.createdAt
            decided_by = appeal.decidedBy; decided_at = appeal.decidedAt; note = appeal.note
        }
    }

    package struct Strike: Encodable {
        package var id, reason, created_at, expires_at: String
        @Nullable package var message_id: String?

        package init(_ strike: StoredStrike) {
            id = strike.id; reason = strike.reason; message_id = strike.messageID
            created_at = strike.createdAt; expires_at = strike.expiresAt
        }
    }

    package struct Strikes: Encodable {
        package var user_id: String
        package var active: Int
        package var strikes: [Strike]

        package init(user_id: String, active: Int, strikes: [Strike]) {
            self.user_id = user_id
            self.active = active
            self.strikes = strikes
        }
    }

    /// (Its members are strings, which always encode; `{}` keeps the callers' splice safe all the same.)
    package static func json(_ appeal: StoredAppeal) -> [UInt8] {
        (try? JSONText.encode(Appeal(appeal))) ?? Array("{}".utf8)
    }

    /// The appeal's object with more members appended (`,"name":value` each, already JSON).
    package static func json(_ appeal: StoredAppeal, adding members: [(name: String, json: [UInt8])]) -> [UInt8] {
        var json = Self.json(appeal)
        json.removeLast()  // the closing brace
        for member in members {
            json.append(UInt8(ascii: ","))
            JSONText.appendString(member.name, to: &json)
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: member.json)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// A moderator's view of an appeal: the message or ban it is about, the message's flags and
    /// its earlier texts.
    package static func item(_ item: AppealItem, for identity: Identity, choice: Catalog.Choice) -> [UInt8] {
        let message = item.message.map { MessageJSON.json($0, for: identity, choice: choice, alertActionsEnabled: false) }
        var flags: [UInt8] = [UInt8(ascii: "[")]
        for (index, flag) in item.flags.enumerated() {
            if index > 0 { flags.append(UInt8(ascii: ",")) }
            FlagJSON.append(flag, to: &flags)
        }
        flags.append(UInt8(ascii: "]"))
        let revisions = (try? JSONText.encode(item.revisions.map(RevisionJSON.init))) ?? Array("[]".utf8)
        return json(item.appeal, adding: [("message", message ?? Array("null".utf8)), ("flags", flags), ("revisions", revisions),
                                          ("ban", ban(item.ban))])
    }

    package static func ban(_ ban: StoredBan?) -> [UInt8] {
        ban.flatMap { try? JSONText.encode(BanJSON($0)) } ?? Array("null".utf8)
    }
}
