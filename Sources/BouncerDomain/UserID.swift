/// User ids: 1-255 characters of `[A-Za-z0-9_.@:|=+-]` (`IDSyntax.user`), and the ids no person
/// may have.
public enum UserID {
    public static let maxLength = IDSyntax.user.maxLength

    public static func isValid(_ id: String) -> Bool { IDSyntax.user.accepts(id) }

    /// Ids no person may have: `system` files the rules' own flags (`SystemFlag.reporterID`), and
    /// a user of that name would file flags that look like theirs.
    public static let reserved: Set<String> = [SystemFlag.reporterID]

    /// A valid id that a person may have.
    public static func isPersonal(_ id: String) -> Bool { isValid(id) && !reserved.contains(id) }
}
