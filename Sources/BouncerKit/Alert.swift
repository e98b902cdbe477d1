import Foundation

/// The "Are you sure?" alert of a bounced message, in the request's language.
///
/// Show it to the author when ``Message/alert`` is present: its title, its message and one button
/// per action. The server leaves it out when `bounced_messages_alert_actions_enabled` is off; the
/// message then carries only its ``Message/notice``.
public struct BouncedMessageAlert: Sendable, Hashable, Codable {
    /// "Are you sure?"
    public var title: String
    /// Why the message came back, and what the community asks.
    public var message: String
    /// The buttons, in the order to show them. `resend` is there only where Send Anyway does
    /// something (the bouncing rule was `bounce_flag` or `bounce_remove`).
    public var actions: [AlertAction]

    /// Creates an alert (for previews and tests; the server sends the real ones).
    public init(title: String, message: String, actions: [AlertAction]) {
        self.title = title
        self.message = message
        self.actions = actions
    }

    /// The action with `id`, if the alert offers it.
    public func action(_ id: AlertAction.ID) -> AlertAction? { actions.first { $0.id == id } }
}

/// A button of a ``BouncedMessageAlert``.
public struct AlertAction: Sendable, Hashable, Codable, Identifiable {
    /// What a button of the alert does.
    public enum ID: Sendable, Hashable, Codable {
        /// Send Anyway: ``BouncerClient/sendAnyway(_:)``.
        case resend
        /// Edit Message: ``BouncerClient/edit(_:text:)``.
        case edit
        /// Delete Message: ``BouncerClient/delete(_:)``.
        case delete
        /// An action this version of BouncerKit does not know.
        case other(String)

        /// The id as the API writes it.
        public var rawValue: String {
            switch self {
            case .resend: "resend"
            case .edit: "edit"
            case .delete: "delete"
            case .other(let value): value
            }
        }

        /// The id the API wrote as `rawValue`.
        public init(rawValue: String) {
            switch rawValue {
            case "resend": self = .resend
            case "edit": self = .edit
            case "delete": self = .delete
            default: self = .other(rawValue)
            }
        }

        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// What the button does.
    public var id: ID
    /// The button's localized title ("Send Anyway", "Edit Message", "Delete Message").
    public var title: String

    /// Creates an action.
    public init(id: ID, title: String) {
        self.id = id
        self.title = title
    }
}

/// An action the caller may take on a message, from ``BouncerClient/actions(for:)``.
public struct MessageAction: Sendable, Hashable, Codable, Identifiable {
    /// The action's id: `flag`, `edit`, `delete`, or for a bounced message the alert's
    /// `resend`, `edit` and `delete`.
    public var id: String
    /// The localized title of the menu item.
    public var title: String
    /// Whether to show it as destructive (in red).
    public var destructive: Bool
    /// What to ask before doing it, if anything (flagging and deleting ask).
    public var confirmation: Confirmation?

    /// The texts of a confirmation dialog.
    public struct Confirmation: Sendable, Hashable, Codable {
        /// The dialog's title ("Flag Message").
        public var title: String
        /// The question ("Do you want to send a copy of this message to a moderator ...?").
        public var message: String
        /// The confirming button's title ("Flag").
        public var button: String
    }
}
