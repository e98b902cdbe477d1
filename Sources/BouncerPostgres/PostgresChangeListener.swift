import BouncerStore
import Foundation
import Glibc
import Locking

/// A connection of its own that `LISTEN`s on `bouncer_changes` (announced by `change_versions`'
/// trigger as each change commits) and calls `changed` for each notification. When the server
/// goes away it connects again every second; notifications sent meanwhile are lost, which is why
/// the service also compares versions on a timer.
final class PostgresChangeListener: ChangeWatch, @unchecked Sendable {
    static let channel = "bouncer_changes"

    private let url: String
    private let changed: @Sendable () -> Void
    private let stopped = Locked(false)

    /// Starts listening on a thread of its own, which holds the listener until `stop`.
    init(url: String, changed: @escaping @Sendable () -> Void) {
        self.url = url
        self.changed = changed
        let thread = Thread { self.run() }
        thread.name = "bouncer.postgres.listen"
        thread.start()
    }

    /// Stops within a quarter of a second (the longest wait for the socket).
    func stop() { stopped.withLock { $0 = true } }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func run() {
        while !isStopped {
            do {
                let connection = try PostgresConnection(url: url)
                try connection.execute("LISTEN \(Self.channel)", [])
                // Anything changed while no connection listened is found by the next version
                // check; a notification now makes it sooner.
                changed()
                try listen(on: connection)
                connection.close()
            } catch {
                // The server is down or restarting: try again in a second.
                for _ in 0..<4 where !isStopped { usleep(250_000) }
            }
        }
    }

    private func listen(on connection: PostgresConnection) throws(PostgresError) {
        while !isStopped {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 250)
            guard ready > 0 else {
                if ready < 0 && errno != EINTR { throw PostgresError(sqlState: nil, message: "poll failed", connectionLost: true) }
                continue
            }
            if try !connection.notifications().isEmpty { changed() }
            guard connection.isOpen else { throw PostgresError(sqlState: nil, message: "the connection was lost", connectionLost: true) }
        }
    }
}

extension PostgresStore {
    public func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)? {
        PostgresChangeListener(url: listenURL ?? url, changed: changed)
    }
}
