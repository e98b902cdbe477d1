import CEpoll
import Foundation
import Glibc
import Locking

/// A thread that owns a set of connections: it waits in `epoll_wait` for their sockets, runs the
/// work other threads hand it (`execute`: a committed write's response, a shutdown), and checks
/// their deadlines. Everything a connection does happens on this one thread, in that order.
///
/// Why its own thread and not Dispatch: with a Dispatch source on the epoll descriptor, every
/// batch of ready sockets cost three thread wake-ups (Dispatch's manager thread, a worker, then
/// the manager again to re-arm the source), and each response handed over from the store's writer
/// woke a worker of its own. Here the kernel wakes the loop once for both.
///
/// Sockets are registered edge-triggered: a connection reads until the socket is drained (or
/// asks to be called again), and watches for writability only while a response is blocked.
final class EventLoop: @unchecked Sendable {
    /// What a registered socket is told.
    protocol Handler: AnyObject {
        /// `hangUp`: the peer closed its side; its EOF is waiting behind whatever data is left.
        func readable(hangUp: Bool)
        func writable()
        /// When the handler wants `deadlineReached()` (`DispatchTime` uptime nanoseconds; `.max`:
        /// never). A handler that moves it earlier says so with `deadlineMoved(to:)`.
        var deadlineDue: UInt64 { get }
        func deadlineReached()
    }

    /// Deadlines are checked at most this often: how late a timeout may be answered.
    static let deadlineCheckInterval: UInt64 = 25_000_000

    /// A closure held in a struct: an array of bare closures keeps each behind a thunk of the
    /// most general calling convention, which costs an allocation for every one appended.
    private struct QueuedTask {
        let run: @Sendable () -> Void
    }

    private struct Mailbox {
        var tasks: [QueuedTask] = []
        /// The wake-up descriptor has been written since the loop last took the tasks.
        var wakeupPending = false
    }

    private let epollFD: Int32
    /// Written by `execute` to wake the loop.
    private let wakeupFD: Int32
    private let mailbox = Locked(Mailbox())
    // Touched only on the loop's thread. Tokens, not descriptors, key the table: an event still
    // queued for a socket that closed in the same batch finds nothing instead of a newer
    // socket's handler. Token 0 is the wake-up descriptor.
    private var handlers: [UInt64: Handler] = [:]
    /// The tasks array the loop last ran, emptied but keeping its room: swapped into the mailbox
    /// when the loop takes the tasks, so that `execute` appends without growing a new array
    /// every round (it is called on the store's writer thread, once a send).
    private var spareTasks: [QueuedTask] = []
    private var nextToken: UInt64 = 1
    private var stopping = false
    /// No handler's deadline is due before this (`.max`: none is set), so until then the loop
    /// neither wakes for deadlines nor looks at its handlers: idle connections cost nothing.
    private var earliestDeadline: UInt64 = .max
    /// Where the loop's connections read their sockets into, one at a time: allocated once, as
    /// a read per request would otherwise allocate and free 16 KiB.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
    /// The `Date` field of the responses written on this loop. Only touched on the loop's thread.
    var dateField = HTTPDateField()
    private var readyMasks = [UInt32](repeating: 0, count: 256)
    private var readyTokens = [UInt64](repeating: 0, count: 256)
    private var loopThread = pthread_t()
    /// Only touched on the loop's thread.
    private var pollBeforeSleep: PollBeforeSleep

    init(label: String, pollBeforeSleep: Duration = .zero) throws {
        self.pollBeforeSleep = PollBeforeSleep(limit: pollBeforeSleep)
        epollFD = cepoll_create()
        guard epollFD >= 0 else { throw SocketError(call: "epoll_create1", code: errno) }
        wakeupFD = cepoll_wakeup_create()
        guard wakeupFD >= 0 else {
            let code = errno
            Glibc.close(epollFD)
            throw SocketError(call: "eventfd", code: code)
        }
        guard cepoll_add(epollFD, wakeupFD, cepoll_in(), Self.wakeupToken) == 0 else {
            let code = errno
            Glibc.close(epollFD)
            Glibc.close(wakeupFD)
            throw SocketError(call: "epoll_ctl(ADD)", code: code)
        }
        // The thread holds the loop until `stop()` ends it.
        let thread = Thread { [self] in run() }
        thread.name = label
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Runs `task` on the loop's thread, after what it is doing now. From any thread.
    func execute(_ task: @escaping @Sendable () -> Void) {
        let wake = mailbox.withLock { mailbox -> Bool in
            mailbox.tasks.append(QueuedTask(run: task))
            if mailbox.wakeupPending { return false }
            mailbox.wakeupPending = true
            return true
        }
        if wake { cepoll_wakeup_signal(wakeupFD) }
    }

    /// Whether the caller is on the loop's thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    /// Watches `fd` for input. Call on the loop's thread. Returns the token to pass back when done.
    func register(_ fd: Int32, handler: Handler) throws -> UInt64 {
        assert(isCurrent)
        let token = nextToken
        nextToken += 1
        guard cepoll_add(epollFD, fd, Self.inputEvents, token) == 0 else { throw SocketError(call: "epoll_ctl(ADD)", code: errno) }
        handlers[token] = handler
        return token
    }

    /// Also watches for writability (or stops doing so), while a response waits for the peer.
    func watchWritable(_ fd: Int32, token: UInt64, _ watch: Bool) {
        cepoll_modify(epollFD, fd, watch ? Self.inputEvents | cepoll_out() : Self.inputEvents, token)
    }

    /// Stops watching `fd`; the caller closes it afterwards.
    func deregister(_ fd: Int32, token: UInt64) {
        assert(isCurrent)
        cepoll_delete(epollFD, fd)
        handlers[token] = nil
    }

    /// A handler's `deadlineDue` moved earlier. Call on the loop's thread.
    func deadlineMoved(to due: UInt64) {
        earliestDeadline = min(earliestDeadline, due)
    }

    /// Ends the loop's thread once its connections are gone.
    func stop() {
        execute { [self] in stopping = true }
    }

    // Closed only once nothing holds the loop: a late `execute` (a commit answered after
    // shutdown) still writes to its own descriptor, never to one the number was reused for.
    deinit {
        Glibc.close(epollFD)
        Glibc.close(wakeupFD)
        readBuffer.deallocate()
    }

    private static let wakeupToken: UInt64 = 0
    private static let inputEvents = cepoll_in() | cepoll_rdhup() | cepoll_et()
    private static let inputReady = cepoll_in() | cepoll_rdhup() | cepoll_hup() | cepoll_err()
    private static let hangUp = cepoll_rdhup() | cepoll_hup() | cepoll_err()

    private func run() {
        loopThread = pthread_self()
        var nextDeadlineCheck = Self.now() + Self.deadlineCheckInterval
        // Whether the last wait found anything: only a loop that has been busy may look again
        // before it sleeps (see `PollBeforeSleep`); an idle one, woken by a deadline, never does.
        var didWork = false
        while !stopping {
            let check = max(nextDeadlineCheck, earliestDeadline)
            // Work handed over while the loop is busy needs no look here: once the loop has taken
            // the tasks, the next `execute` writes the wake-up descriptor, so this wait returns
            // at once.
            var count: Int
            if didWork && pollBeforeSleep.wantsToLook() {
                count = waitForEvents(timeout: 0)
                if count == 0 { count = pollBeforeSleep.look(now: Self.now) { waitForEvents(timeout: 0) } }
                // The time to sleep is taken after the look, which may have used some of it.
                if count == 0 { count = waitForEvents(timeout: Self.sleepTimeout(until: check)) }
            } else {
                count = waitForEvents(timeout: Self.sleepTimeout(until: check))
            }
            didWork = count > 0
            if count < 0 && errno != EINTR {
                // Only a programming error (a bad descriptor) gets here; say so rather than spin.
                fatalError("epoll_wait failed: \(SocketError(call: "epoll_wait", code: errno))")
            }
            for index in 0..<max(0, count) {
                let mask = readyMasks[index]
                let token = readyTokens[index]
                if token == Self.wakeupToken {
                    cepoll_wakeup_clear(wakeupFD)
                    continue
                }
                if mask & Self.inputReady != 0 { handlers[token]?.readable(hangUp: mask & Self.hangUp != 0) }
                if mask & cepoll_out() != 0 { handlers[token]?.writable() }
            }
            var tasks: [QueuedTask] = []
            swap(&tasks, &spareTasks)
            mailbox.withLock { mailbox in
                mailbox.wakeupPending = false
                swap(&tasks, &mailbox.tasks)
            }
            // Nothing given after `stop()` runs: the connections are gone by then.
            for task in tasks where !stopping { task.run() }
            // Room for a burst of thousands is given back rather than kept for good.
            tasks.removeAll(keepingCapacity: tasks.capacity <= 4096)
            swap(&tasks, &spareTasks)
            let checked = Self.now()
            if checked >= check {
                nextDeadlineCheck = checked + Self.deadlineCheckInterval
                checkDeadlines(now: checked)
            }
        }
    }

    /// How long a wait may sleep before `deadline` (uptime nanoseconds), in milliseconds rounded
    /// up; -1 (sleep until woken) when there is none.
    private static func sleepTimeout(until deadline: UInt64) -> Int32 {
        guard deadline != .max else { return -1 }
        let current = now()
        return Int32(clamping: (deadline &- min(current, deadline)) / 1_000_000 + 1)
    }

    /// `epoll_wait` into the loop's arrays; `timeout` in milliseconds (-1: none, 0: don't sleep).
    private func waitForEvents(timeout: Int32) -> Int {
        Int(cepoll_wait(epollFD, &readyMasks, &readyTokens, Int32(readyMasks.count), timeout))
    }

    /// Tells the handlers whose deadline has come, and finds the next one.
    private func checkDeadlines(now: UInt64) {
        earliestDeadline = .max
        var reached: [Handler] = []
        for handler in handlers.values {
            let due = handler.deadlineDue
            if due <= now { reached.append(handler) } else { earliestDeadline = min(earliestDeadline, due) }
        }
        // Told after the pass: a handler may close, and so leave the table, or set a new deadline.
        for handler in reached { handler.deadlineReached() }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
