import Glibc

/// A value kept in several copies, each behind its own lock, where a thread takes the copy of its
/// own slot. State that every request touches (the access log's buffer, the request counters)
/// lives here: with one lock, the event loops took turns at it, and a loop that found it held
/// slept in the kernel and was woken by the other. Readers visit every copy.
///
/// Threads get slots in the order they first ask, so the few event-loop threads each have one of
/// their own; later threads share slots, which is still correct, only contended.
public final class PerThread<Value>: @unchecked Sendable {
    @usableFromInline let slots: [Locked<Value>]

    /// `slotCount` copies, each made by `make`.
    public init(slotCount: Int = PerThreadSlot.count, _ make: () -> Value) {
        slots = (0..<max(1, slotCount)).map { _ in Locked(make()) }
    }

    /// Runs `body` with the calling thread's copy, under that copy's lock.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try slots[PerThreadSlot.current % slots.count].withLock(body)
    }

    /// Runs `body` with each copy in turn, each under its own lock.
    public func forEach(_ body: (inout Value) -> Void) {
        for slot in slots { slot.withLock(body) }
    }
}

/// The calling thread's slot number, handed out once per thread from a counter and kept in a
/// thread-specific key.
public enum PerThreadSlot {
    /// How many copies a `PerThread` keeps by default: more than the event loops of any machine
    /// this runs on in practice; threads past that share.
    public static let count = 16

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key is left")
        return key
    }()
    private static let next = Locked(0)

    /// The slot of the calling thread.
    public static var current: Int {
        let key = self.key
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
        let slot = next.withLock { next -> Int in
            defer { next += 1 }
            return next
        }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot + 1))
        return slot
    }
}
