import Glibc

/// A value only touched while a pthread mutex is held.
///
/// Used instead of the standard library's `Mutex` for one reason: ThreadSanitizer knows pthread
/// mutexes, while `Mutex` on Linux locks with atomics and futexes it cannot see, so every access
/// through a `Mutex` is reported as a data race and real races drown among them.
public final class Locked<Value>: @unchecked Sendable {
    // Visible to the inlined `withLock` in other modules, not to their code.
    @usableFromInline var value: Value
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. `body` must not lock it again.
    /// Inlinable: called from other modules, a generic function that is not runs unspecialized,
    /// looking up its types and calling `body` through a thunk on every call.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
