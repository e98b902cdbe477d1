import BouncerStore
/// The SQLite store refused work because it was closed.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case closed

    public var description: String {
        switch self {
        case .closed: "the store is closed"
        }
    }
}
