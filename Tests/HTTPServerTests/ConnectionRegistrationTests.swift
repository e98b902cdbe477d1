import Foundation
import Locking
import Testing
import TestSupport
@testable import HTTPServer

@Suite("Connections the loop cannot watch")
struct ConnectionRegistrationTests {
    /// epoll refuses a regular file, so a connection over one fails to register: it must be closed
    /// in the books as well as in the kernel, so that a shutdown closing every connection does not
    /// close its number again, by then another file's.
    @Test("a connection whose registration fails is closed once, and its number is not closed again")
    func aFailedRegistrationClosesOnce() async throws {
        let loop = try EventLoop(label: "test.registration")
        defer { loop.stop() }
        let closedCount = Locked(0)
        let failures = Locked<[String]>([])
        let context = ServerContext(limits: ServerLimits(), router: Router(), problemRenderer: DefaultProblemRenderer(),
                                    events: ServerEvents(failure: { message, _ in failures.withLock { $0.append(message) } }),
                                    onConnectionClosed: { _ in closedCount.withLock { $0 += 1 } })
        let directory = try TemporaryDirectory()
        try directory.write("first", "x")
        try directory.write("second", "y")
        let outcome: (markedClosed: Bool, reused: Bool, stillOpen: Bool) = await withCheckedContinuation { continuation in
            loop.execute {
                let fd = open(directory.path("first"), O_RDONLY)
                let connection = Connection(fd: fd, context: context, loop: loop)
                connection.start()
                let markedClosed = connection.closed
                // The number is free again: the next file opened gets it.
                let other = open(directory.path("second"), O_RDONLY)
                // What a shutdown does to every connection it knows of.
                connection.close()
                let stillOpen = fcntl(other, F_GETFD) != -1
                Glibc.close(other)
                continuation.resume(returning: (markedClosed, other == fd, stillOpen))
            }
        }
        #expect(outcome.markedClosed)
        // Other tests open files meanwhile, so the number is given again to ours most of the time.
        if outcome.reused { #expect(outcome.stillOpen, "closing the failed connection again closed another file") }
        #expect(closedCount.withLock { $0 } == 1)
        #expect(failures.withLock { $0 }.contains { $0.contains("cannot watch a new connection") })
    }
}
