/// Where compiled vectorscan databases are kept between runs, so a restart with a large rule set
/// loads its databases instead of compiling them again (seconds for 100,000 rules).
///
/// A key names everything a database is compiled from: the library's version, the CPU features it
/// was compiled for, the mode and flags, and every pattern in order. A key that matches is the
/// same database; anything that changed (the rules, how they are normalized, the library, the
/// machine) is another key, so a stale database is never found. What is stored is the library's
/// own serialization; one that fails to load is compiled again.
public protocol CompiledDatabaseStore: Sendable {
    /// The bytes stored under `key`, or nil.
    func load(key: [UInt8]) -> [UInt8]?
    /// Keeps `bytes` under `key`; a failure only costs a compile next time.
    func save(_ bytes: [UInt8], key: [UInt8])
}
