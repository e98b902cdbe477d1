import Synchronization

/// SQL that a connection runs for every write, declared once: its statement is found by the
/// slot given out here, instead of by hashing and comparing its text on every run (a few
/// hundred bytes for the message insert, on the writer's thread, which every send waits for).
public struct FrequentSQL: Sendable {
    public let sql: String
    /// This SQL's place in each connection's `frequentStatements`.
    let slot: Int

    private static let slotsGiven = Atomic<Int>(0)

    /// Declare these as `static let`s: each call takes a new slot for the life of the process.
    public init(_ sql: String) {
        self.sql = sql
        slot = Self.slotsGiven.add(1, ordering: .relaxed).oldValue
    }

    static let beginImmediate = FrequentSQL("BEGIN IMMEDIATE")
    static let commit = FrequentSQL("COMMIT")
    static let rollback = FrequentSQL("ROLLBACK")
}
