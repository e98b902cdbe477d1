/// The one rule of who may see a message: moderators see everything and authors their own; the
/// rest see delivered and deleted messages that enough reports have not hidden. Written twice,
/// side by side: in Swift for one message, and as SQL for a query's WHERE clause.
public enum MessageVisibility {
    /// The states every member of a channel may see.
    public static let publicStates: [MessageState] = [.delivered, .deleted]

    public static func isVisible(state: MessageState, hidden: Bool, authorID: String, to viewer: Viewer) -> Bool {
        viewer.seesEverything || authorID == viewer.userID || (publicStates.contains(state) && !hidden)
    }

    /// The same rule for a non-moderator as a SQL condition on the `messages` columns `state`,
    /// `hidden` and `user_id` (each after `prefix`, a table alias and its dot or empty), with the
    /// viewer's id in the parameter `viewer` (`?4`, `:viewer`).
    public static func sqlCondition(prefix: String = "", viewer: String) -> String {
        let states = publicStates.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return "((\(prefix)state IN (\(states)) AND \(prefix)hidden = 0) OR \(prefix)user_id = \(viewer))"
    }
}
