import Dispatch
import Glibc
import Locking
import Synchronization

/// An HTTP/1.1 server on non-blocking POSIX sockets: a Dispatch source watches the listening
/// socket, and each event loop (see `Configuration.eventLoopCount`) is a thread that waits on its
/// own epoll instance, which holds its connections. See `EventLoop` for why.
public final class HTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var limits: ServerLimits
        public var backlog: Int32 = 4096
        /// How many event loops share the connections: one a core. The store's writer spends
        /// most of its time waiting for the disk, so it needs no core of its own; on two cores
        /// two loops sent more messages a second than one in 10 of 13 interleaved runs, with
        /// larger commit groups.
        public var eventLoopCount = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        /// How long a busy event loop that runs dry looks for more before it sleeps, while that
        /// keeps finding work (see `PollBeforeSleep`); zero sleeps at once.
        public var pollBeforeSleep: Duration = .microseconds(10)

        public init(host: String = "127.0.0.1", port: Int = 8080, limits: ServerLimits = ServerLimits()) {
            self.host = host
            self.port = port
            self.limits = limits
        }
    }

    private struct Registry {
        var connections: [ObjectIdentifier: Connection] = [:]
    }

    /// State of the listening socket, touched only on `acceptQueue`.
    private final class Listener: @unchecked Sendable {
        var source: DispatchSourceRead?
        var suspended = false
        var stopped = false
        var nextLoop = 0
        var lastDescriptorWarning: ContinuousClock.Instant?
        /// A connection whose descriptor is this or higher leaves too few for the rest of the
        /// process (see `descriptorReserve`), and is closed at once.
        var descriptorCeiling = Int32.max
    }

    /// Descriptors kept free of connections, for what else the process opens: the store's files,
    /// webhook sockets, name lookups, and libdispatch, which opens `/proc/<tid>/stat` for its
    /// worker threads once a second and ends the process when it cannot. A quarter of the limit,
    /// from 16 to 256 (a backup, with its journal and integrity check, takes about 7 at once).
    static func descriptorReserve(limit: Int) -> Int { max(16, min(256, limit / 4)) }

    public let configuration: Configuration
    private let context: Locked<ServerContext?> = Locked(nil)
    let router: Router
    let problemRenderer: any ProblemRenderer
    let events: ServerEvents
    private let registry = Locked(Registry())
    private let acceptQueue = DispatchQueue(label: "bouncer.http.accept")
    /// Event loops; connections are spread over them in turn.
    private let eventLoops = Locked<[EventLoop]>([])
    private let listener = Listener()
    private let boundPort = Atomic<Int>(0)

    public init(configuration: Configuration, router: Router,
                problemRenderer: any ProblemRenderer = DefaultProblemRenderer(), events: ServerEvents = ServerEvents()) {
        self.configuration = configuration
        self.router = router
        self.problemRenderer = problemRenderer
        self.events = events
    }

    /// The port the server listens on (the kernel's choice when configured with port 0).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    public var openConnections: Int { registry.withLock { $0.connections.count } }

    /// Binds, listens and starts accepting. Returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        let descriptorLimit = Socket.raiseOpenFileLimit()
        listener.descriptorCeiling = Int32(clamping: descriptorLimit - Self.descriptorReserve(limit: descriptorLimit))
        let (fd, port) = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        boundPort.store(port, ordering: .releasing)
        let loops = try (0..<max(1, configuration.eventLoopCount)).map {
            try EventLoop(label: "bouncer.http.loop.\($0)", pollBeforeSleep: configuration.pollBeforeSleep)
        }
        eventLoops.withLock { $0 = loops }
        let context = ServerContext(limits: configuration.limits, router: router, problemRenderer: problemRenderer,
                                    events: events) { [weak self] connection in self?.connectionClosed(connection) }
        self.context.withLock { $0 = context }
        acceptQueue.sync {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
            source.setEventHandler { [unowned self] in acceptConnections(listenFD: fd, context: context, loops: loops) }
            source.setCancelHandler { Glibc.close(fd) }
            listener.source = source
            source.activate()
        }
        return port
    }

    /// Graceful shutdown: stops accepting, lets requests in flight finish and be answered with
    /// `Connection: close`, closes idle connections, and after `gracePeriod` closes whatever is
    /// left. Returns when every connection is closed.
    public func shutdown(gracePeriod: Duration = .seconds(8)) async {
        acceptQueue.sync {
            guard let source = listener.source, !listener.stopped else { return }
            listener.stopped = true
            if listener.suspended {
                listener.suspended = false
                source.resume()
            }
            source.cancel()
        }
        for connection in registry.withLock({ Array($0.connections.values) }) {
            connection.loop.execute { connection.drain() }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + gracePeriod
        while openConnections > 0 && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for connection in registry.withLock({ Array($0.connections.values) }) {
            connection.loop.execute { connection.close() }
        }
        let hardDeadline = clock.now + .seconds(1)
        while openConnections > 0 && clock.now < hardDeadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for loop in eventLoops.withLock({ $0 }) { loop.stop() }
    }

    // MARK: - Accepting

    /// Most connections accepted in one wake-up before other work gets a turn.
    private static let acceptBatch = 256

    private func acceptConnections(listenFD: Int32, context: ServerContext, loops: [EventLoop]) {
        for _ in 0..<Self.acceptBatch {
            if openConnections >= configuration.limits.maxConnections {
                // At the cap: leave further clients in the kernel's backlog until one closes.
                pauseAccepting()
                return
            }
            switch Socket.accept(listenFD) {
            case .accepted(let fd) where fd >= listener.descriptorCeiling:
                // Descriptors are handed out lowest first: every one below this is in use.
                Glibc.close(fd)
                outOfDescriptors()
                return
            case .accepted(let fd):
                listener.nextLoop = (listener.nextLoop + 1) % loops.count
                let loop = loops[listener.nextLoop]
                let connection = Connection(fd: fd, context: context, loop: loop)
                registry.withLock { $0.connections[ObjectIdentifier(connection)] = connection }
                loop.execute { connection.start() }
            case .wouldBlock:
                return
            case .skipped:
                continue
            case .outOfDescriptors:
                outOfDescriptors()
                return
            case .failed(let code):
                events.failure("accept failed: \(SocketError(call: "accept", code: code))", nil)
                return
            }
        }
    }

    /// Accepting waits 100 ms at a time while descriptors are short: clients wait in the backlog.
    private func outOfDescriptors() {
        let now = ContinuousClock.now
        if listener.lastDescriptorWarning.map({ now - $0 > .seconds(10) }) ?? true {
            listener.lastDescriptorWarning = now
            events.failure("accept: out of file descriptors with \(openConnections) connections open; "
                + "pausing accepts for 100 ms at a time (said at most every 10 s)", nil)
        }
        pauseAccepting()
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in self?.resumeAccepting() }
    }

    private func pauseAccepting() {
        guard let source = listener.source, !listener.suspended, !listener.stopped else { return }
        listener.suspended = true
        source.suspend()
    }

    private func resumeAccepting() {
        guard let source = listener.source, listener.suspended, !listener.stopped else { return }
        listener.suspended = false
        source.resume()
    }

    private func connectionClosed(_ connection: Connection) {
        let remaining = registry.withLock { registry in
            registry.connections[ObjectIdentifier(connection)] = nil
            return registry.connections.count
        }
        if remaining < configuration.limits.maxConnections {
            acceptQueue.async { [weak self] in
                guard let self, self.listener.suspended else { return }
                self.resumeAccepting()
            }
        }
    }
}
