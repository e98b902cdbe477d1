/// An error of either store. `isUnavailable`: the store cannot serve now (a full or failing disk,
/// the database server down or restarting), and a client should hear 503 `store_unavailable`
/// and try again, not an error of its own. `isConflict`: the write met another instance's
/// (a serialization failure or a deadlock) again and again, past the store's own retries; a
/// client should hear 503 too, since the same request can succeed a moment later.
public protocol StoreFailure: Error, CustomStringConvertible {
    var isUnavailable: Bool { get }
    var isConflict: Bool { get }
}

extension StoreFailure {
    public var isConflict: Bool { false }
}
