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
/// finds none costs twice as much, and with no credit the loop waits as before, looking again
/// only after `probeInterval` busy passes, to notice that the load has changed. At light load the
/// loop therefore sleeps as before but for one look in 32 busy passes, a few microseconds each;
/// idle, it never looks.
///
/// `limit` is checked between looks, so a look may last a little longer: a `sched_yield` can give
/// the core away for the other thread's whole time slice.
struct PollBeforeSleep {
    /// The longest look, in nanoseconds; 0 never looks.
    let limit: UInt64
    private var credit = 0
    /// Busy passes since the last look, counted while there is no credit.
    private var passesSinceLook = 0

    static let maxCredit = 8
    static let failureCost = 2
    static let probeInterval = 32
    /// Longer looks than this are taken as this: a look is meant to last microseconds.
    static let longestLimit = Duration.seconds(1)

    init(limit: Duration) {
        let limit = min(max(limit, .zero), Self.longestLimit)
        self.limit = UInt64(limit.components.seconds) * 1_000_000_000 + UInt64(limit.components.attoseconds / 1_000_000_000)
    }

    /// Asked before a busy loop's next wait: whether to first check for ready work without
    /// sleeping and, when there is none, `look` before sleeping. Without credit, yes once
    /// `probeInterval` busy passes have gone by since the last look (and until the next one).
    mutating func wantsToLook() -> Bool {
        guard limit > 0 else { return false }
        if credit > 0 || passesSinceLook >= Self.probeInterval { return true }
        passesSinceLook += 1
        return false
    }

    /// What the look found.
    private mutating func record(foundWork: Bool) {
        credit = foundWork ? min(Self.maxCredit, credit + 1) : max(0, credit - Self.failureCost)
    }

    /// Looks with `poll` (a non-blocking wait that returns how many are ready) until it finds
    /// something or `limit` has passed, yielding the core between looks. Returns `poll`'s last
    /// answer.
    mutating func look(now: () -> UInt64, poll: () -> Int) -> Int {
        passesSinceLook = 0
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
