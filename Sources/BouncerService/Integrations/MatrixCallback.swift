import BouncerApplication
import BouncerDomain
import HTTPServer
import JSON

/// One spam-checker callback of Synapse's `synapse-http-antispam` module, as Bouncer reads it:
/// the module POSTs each callback's arguments as a JSON object to `<base_url>/<callback>`.
enum MatrixCallback: Equatable {
    /// `m.room.message`: a new message.
    case message(MatrixMessage)
    /// `m.room.message` replacing an earlier one (`m.relates_to.rel_type` `m.replace`).
    case edit(MatrixMessage, replaces: String)
    /// `m.room.redaction` of the event `redacts`, by `sender`, sent in `roomID`.
    case redaction(sender: String, roomID: String?, redacts: String)
    /// Any other event (encrypted, state, reactions): allowed, counted by its kind.
    case otherEvent(kind: String)
    /// A callback about what a user may do (join, invite, create or publish a room): refused
    /// to a banned user.
    case userAction(user: String)
    /// The module's `do_ping` at start: answered with its id.
    case ping(id: String)
    /// Every other callback: allowed.
    case unmoderated

    /// The callbacks that ask whether a user may act, and the argument that names the user.
    static let userActions: [String: String] = [
        "user_may_join_room": "user", "user_may_invite": "inviter", "user_may_send_3pid_invite": "inviter",
        "user_may_create_room": "user_id", "user_may_create_room_alias": "user_id", "user_may_publish_room": "user_id",
    ]

    /// Reads callback `name`'s arguments. Throws 400 for a body that is not the module's.
    init(name: String, body: JSONValue) throws(HTTPError) {
        guard case .object(let arguments) = body else { throw Self.malformed("The body is not a JSON object.", key: "matrix.body_object") }
        if name == "ping" {
            self = .ping(id: arguments["id"]?.stringValue ?? "")
            return
        }
        if let argument = Self.userActions[name] {
            guard let user = arguments[argument]?.stringValue else { throw Self.malformed("`\(argument)` is missing.", key: "matrix.argument_missing", [argument]) }
            self = .userAction(user: user)
            return
        }
        guard name == "check_event_for_spam" else {
            self = .unmoderated
            return
        }
        guard let event = arguments["event"], case .object = event, let type = event["type"]?.stringValue else {
            throw Self.malformed("`event` with its `type` is missing.", key: "matrix.event_missing")
        }
        switch type {
        case "m.room.message":
            guard let sender = event["sender"]?.stringValue, let room = event["room_id"]?.stringValue,
                  let eventID = event["event_id"]?.stringValue else {
                throw Self.malformed("A message event needs `sender`, `room_id` and `event_id`.", key: "matrix.message_fields")
            }
            let content = event["content"]
            let relation = content?["m.relates_to"]
            if relation?["rel_type"]?.stringValue == "m.replace", let replaced = relation?["event_id"]?.stringValue {
                // The new text is in `m.new_content`; `body` is a fallback for clients that show
                // edits as new messages ("* new text").
                let text = content?["m.new_content"]?["body"]?.stringValue ?? content?["body"]?.stringValue ?? ""
                self = .edit(MatrixMessage(sender: sender, roomID: room, eventID: eventID, text: text), replaces: replaced)
            } else {
                self = .message(MatrixMessage(sender: sender, roomID: room, eventID: eventID, text: content?["body"]?.stringValue ?? ""))
            }
        case "m.room.redaction":
            // Room versions 11 and later carry `redacts` in the content; earlier ones at the top.
            guard let sender = event["sender"]?.stringValue,
                  let redacts = event["content"]?["redacts"]?.stringValue ?? event["redacts"]?.stringValue else {
                throw Self.malformed("A redaction needs `sender` and `redacts`.", key: "matrix.redaction_fields")
            }
            self = .redaction(sender: sender, roomID: event["room_id"]?.stringValue, redacts: redacts)
        case "m.room.encrypted":
            self = .otherEvent(kind: "encrypted")
        default:
            self = .otherEvent(kind: "other")
        }
    }

    static func malformed(_ detail: String, key: String, _ arguments: [String] = []) -> HTTPError {
        HTTPError(.badRequest, code: "invalid_field", detail: detail).keyed(key, arguments: arguments)
    }
}

/// A Matrix message as Bouncer moderates it: its sender is the user, its room the channel, its
/// event id the message's id, all as Matrix wrote them.
struct MatrixMessage: Equatable {
    var sender: String
    var roomID: String
    var eventID: String
    var text: String
}
