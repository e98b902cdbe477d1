import Dispatch

/// Holds a value that is only ever touched on one serial queue. The compiler cannot see that
/// discipline, so every access checks it at run time (`dispatchPrecondition`), as GRDB's
/// `SchedulingWatchdog` checks that a database is used on its own queue: a stray access from
/// another thread stops the process at the access, not later as a torn value. With no queue (a
/// value made for a test, used on one thread), nothing is checked.
final class UncheckedBox<Value>: @unchecked Sendable {
    private var stored: Value
    private let queue: DispatchQueue?

    init(_ value: Value, confinedTo queue: DispatchQueue?) {
        stored = value
        self.queue = queue
    }

    var value: Value {
        get {
            checkQueue()
            return stored
        }
        set {
            checkQueue()
            stored = newValue
        }
    }

    private func checkQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}
