import Locking

/// Whether the client of a request being handled is still there: set gone when its end of the
/// connection closes (it read nothing more to send and hung up, or the connection failed) while
/// an async handler runs. Long work that nobody would read (a dry run's scan) checks it and
/// stops. A client that only shuts its sending side looks the same from here, and is taken as
/// gone, as Go's servers take it; handlers that do not check still answer it.
public final class ClientPresence: Sendable {
    private let gone = Locked(false)

    public init() {}

    public var isGone: Bool { gone.withLock { $0 } }

    func markGone() { gone.withLock { $0 = true } }
}
