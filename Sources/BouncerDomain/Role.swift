/// Roles, each allowed everything the ones below it are.
public enum Role: String, Sendable, Comparable, CaseIterable, Codable {
    case user
    case moderator
    case admin

    private var rank: Int {
        switch self {
        case .user: 0
        case .moderator: 1
        case .admin: 2
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}
