import Glibc

/// Whether an event loop that has just run out of ready sockets keeps looking for a few
/// microseconds, giving its core to any other runnable thread between looks, before it sleeps in
/// `epoll_wait`.
///
/// Why: under a steady load a loop often runs dry a moment before the next request arrives (its
/// client is answering the last response, on the same cores). Sleeping then costs two thread
/// switches and, on a virtual machine, an idle core's halt and the interrupt that wakes it: with
/// two loops on two cores serving `/healthz`, those switches were a fifth of the server's time
/// and a fifth of the cores sat idle. Looking again a few times, with `sched_yield` between, lets
/// the client run in the meantime and catches its next request awake.
///
/// The looking is paid for only while it pays: each look that finds work earns credit, each that
/// finds none costs twice as much, and with no credit the loop sleeps at once, looking only once
/// in `probeInterval` runs-dry to notice that the load has changed. At light load the loop
/// therefore sleeps as before (one look in 32, a few microseconds each); idle, it never looks.
struct PollBeforeSleep {
    /// The longest look, in nanoseconds; 0 never looks.
    let limit: UInt64
    private var credit = 0
    private var runsDrySinceProbe = 0

    static let maxCredit = 8
    static let failureCost = 2
    static let probeInterval = 32

    init(limit: Duration) {
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        self.limit = UInt64(clamping: max(0, nanoseconds))
    }

    /// Asked when the loop, having done some work, finds nothing ready: whether to look again
    /// for up to `limit` before sleeping.
    mutating func shouldLook() -> Bool {
        guard limit > 0 else { return false }
        if credit > 0 { return true }
        runsDrySinceProbe += 1
        guard runsDrySinceProbe >= Self.probeInterval else { return false }
        runsDrySinceProbe = 0
        return true
    }

    /// What the look found.
    mutating func record(foundWork: Bool) {
        credit = foundWork ? min(Self.maxCredit, credit + 1) : max(0, credit - Self.failureCost)
    }

    /// Looks with `poll` (a non-blocking wait that returns how many are ready) until it finds
    /// something or `limit` has passed, yielding the core between looks. Returns `poll`'s last
    /// answer.
    mutating func look(now: () -> UInt64, poll: () -> Int) -> Int {
        let until = now() &+ limit
        var count = 0
        repeat {
            sched_yield()
            count = poll()
        } while count == 0 && now() < until
        record(foundWork: count > 0)
        return count
    }
}
