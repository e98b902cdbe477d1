import Glibc
import CVectorscan
import Locking

/// A compiled vectorscan database, freed with its owner.
final class Database: Sendable {
    struct CompileError: Error {
        var message: String
        /// Which expression failed, when vectorscan says.
        var expression: Int?
    }

    nonisolated(unsafe) let handle: OpaquePointer
    /// Whether this database was loaded from a `CompiledDatabaseStore` rather than compiled.
    let wasLoaded: Bool

    private init(handle: OpaquePointer, wasLoaded: Bool = false) {
        self.handle = handle
        self.wasLoaded = wasLoaded
    }

    deinit {
        hs_free_database(handle)
    }

    var size: Int {
        var size = 0
        hs_database_size(handle, &size)
        return size
    }

    /// Literals matched byte for byte (nil when there are none).
    static func literals(_ literals: [[UInt8]], store: (any CompiledDatabaseStore)? = nil) throws(CompileError) -> Database? {
        guard !literals.isEmpty else { return nil }
        let key = store.map { _ in CacheKey.make(mode: cvs_mode_block(), flags: 0, literals) }
        if let store, let key, let database = load(key, from: store) { return database }
        var database: OpaquePointer?
        var error: UnsafeMutablePointer<hs_compile_error_t>?
        let pointers = literals.map { literal -> UnsafeMutablePointer<CChar> in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, literal.count))
            literal.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(pointer).copyMemory(from: bytes.baseAddress!, byteCount: literal.count)
            }
            return pointer
        }
        defer { pointers.forEach { $0.deallocate() } }
        let lengths = literals.map { $0.count }
        let ids = (0..<UInt32(literals.count)).map { $0 }
        let flags = [UInt32](repeating: 0, count: literals.count)
        let status = pointers.map { UnsafePointer($0) as UnsafePointer<CChar>? }.withUnsafeBufferPointer { expressions in
            hs_compile_lit_multi(expressions.baseAddress, flags, ids, lengths, UInt32(literals.count), cvs_mode_block(), nil,
                                 &database, &error)
        }
        return try finish(status, database, error).saved(under: key, in: store)
    }

    /// How regexes are compiled and scanned. Vectorscan 5.4.9 (Debian 12) aborts the process in
    /// `hs_scan` on a block-mode database compiled with `HS_FLAG_SOM_LEFTMOST` when the buffer
    /// is 255 bytes or longer, for ordinary shapes like `[a-z]+xy`, `.*ab` or `(a|aa)*b`: its
    /// reverse search for a match's start formats into a 255-byte stack buffer with a size taken
    /// from the input length, and glibc's fortify check ends the process. In streaming mode the
    /// start of each match is carried forward in the stream's state instead of searched for
    /// backwards, and `HS_MODE_SOM_HORIZON_LARGE` keeps those starts exact at any distance. The
    /// text is also handed over in pieces shorter than 255 bytes, so no single call is ever given
    /// a buffer of the size the fault needs. Costs about 0.1 µs a message (opening and closing
    /// the stream); `RulesBenchmark` measures it.
    static let regexMode = cvs_mode_stream_exact_start()
    /// Most bytes handed to vectorscan in one streaming call (see `regexMode`).
    static let regexChunkBytes = 254

    /// Regular expressions, reporting where each match starts (nil when there are none).
    static func regexes(_ patterns: [String], store: (any CompiledDatabaseStore)? = nil) throws(CompileError) -> Database? {
        try compileRegexes(patterns, flags: CompiledRuleSet.regexFlags, mode: regexMode, store: store)
    }

    /// The same expressions as a filter that only says whether any matches: block mode without
    /// match starts (which vectorscan scans fastest, and which never reaches the reverse search
    /// that aborts), stopping at the first match. Most messages match no regex, so most never
    /// reach the streaming database.
    static func regexFilter(_ patterns: [String], store: (any CompiledDatabaseStore)? = nil) throws(CompileError) -> Database? {
        try compileRegexes(patterns, flags: cvs_flag_utf8() | cvs_flag_caseless() | cvs_flag_singlematch(), mode: cvs_mode_block(),
                           store: store)
    }

    private static func compileRegexes(_ patterns: [String], flags patternFlags: UInt32, mode: UInt32,
                                       store: (any CompiledDatabaseStore)?) throws(CompileError) -> Database? {
        guard !patterns.isEmpty else { return nil }
        let key = store.map { _ in CacheKey.make(mode: mode, flags: patternFlags, patterns.map { Array($0.utf8) }) }
        if let store, let key, let database = load(key, from: store) { return database }
        var database: OpaquePointer?
        var error: UnsafeMutablePointer<hs_compile_error_t>?
        let cStrings = patterns.map { strdup($0)! }
        defer { cStrings.forEach { free($0) } }
        let ids = (0..<UInt32(patterns.count)).map { $0 }
        let flags = [UInt32](repeating: patternFlags, count: patterns.count)
        let status = cStrings.map { UnsafePointer($0) as UnsafePointer<CChar>? }.withUnsafeBufferPointer { expressions in
            hs_compile_multi(expressions.baseAddress, flags, ids, UInt32(patterns.count), mode, nil, &database, &error)
        }
        return try finish(status, database, error).saved(under: key, in: store)
    }

    /// The database stored under `key`, if there is one the library takes.
    private static func load(_ key: [UInt8], from store: any CompiledDatabaseStore) -> Database? {
        guard let bytes = store.load(key: key), !bytes.isEmpty else { return nil }
        var database: OpaquePointer?
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { hs_deserialize_database($0.baseAddress, $0.count, &database) }
        }
        guard status == HS_SUCCESS, let database else { return nil }
        let loaded = Database(handle: database, wasLoaded: true)
        // The library checks the bytes; scratch space is what fails for a database this CPU cannot run.
        var scratch: OpaquePointer?
        guard hs_alloc_scratch(loaded.handle, &scratch) == HS_SUCCESS else { return nil }
        hs_free_scratch(scratch)
        return loaded
    }

    /// Saves this database's serialization under `key` (when there is a store), and returns it.
    private func saved(under key: [UInt8]?, in store: (any CompiledDatabaseStore)?) -> Database {
        guard let key, let store else { return self }
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        guard hs_serialize_database(handle, &bytes, &length) == HS_SUCCESS, let bytes else { return self }
        defer { free(bytes) }
        store.save(Array(UnsafeRawBufferPointer(start: bytes, count: length)), key: key)
        return self
    }

    private static func finish(_ status: hs_error_t, _ database: OpaquePointer?,
                               _ error: UnsafeMutablePointer<hs_compile_error_t>?) throws(CompileError) -> Database {
        guard status == HS_SUCCESS, let database else {
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "vectorscan error \(status)"
            let expression = error.map { Int($0.pointee.expression) }
            hs_free_compile_error(error)
            throw CompileError(message: message, expression: expression.flatMap { $0 >= 0 ? $0 : nil })
        }
        return Database(handle: database)
    }

    /// Every match in `bytes` into `collector`: (pattern id, start, end), for a literal database
    /// (block mode). Starts follow from the literal.
    func scan(_ bytes: [UInt8], scratch: OpaquePointer, into collector: MatchCollector) {
        collector.matches.removeAll(keepingCapacity: true)
        guard !bytes.isEmpty else { return }
        let context = Unmanaged.passUnretained(collector).toOpaque()
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                hs_scan(handle, chars.baseAddress, UInt32(chars.count), 0, scratch, collectMatch, context)
            }
        }
    }

    /// Whether anything in the database matches `bytes` (for the regex filter).
    func anyMatch(_ bytes: [UInt8], scratch: OpaquePointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                hs_scan(handle, chars.baseAddress, UInt32(chars.count), 0, scratch, { _, _, _, _, _ in 1 }, nil)
            }
        }
        return status == HS_SCAN_TERMINATED
    }

    /// Every match in `bytes` into `collector`, for the regex database (streaming mode, see
    /// `regexMode`): starts are exact, the leftmost of each match.
    func scanStreaming(_ bytes: [UInt8], scratch: OpaquePointer, into collector: MatchCollector) {
        collector.matches.removeAll(keepingCapacity: true)
        guard !bytes.isEmpty else { return }
        let context = Unmanaged.passUnretained(collector).toOpaque()
        var stream: OpaquePointer?
        guard hs_open_stream(handle, 0, &stream) == HS_SUCCESS, let stream else { return }
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                var offset = 0
                while offset < chars.count {
                    let length = min(Self.regexChunkBytes, chars.count - offset)
                    // Anything but success means the callback stopped the scan (enough matches).
                    guard hs_scan_stream(stream, chars.baseAddress! + offset, UInt32(length), 0, scratch,
                                         collectMatch, context) == HS_SUCCESS else { break }
                    offset += length
                }
            }
        }
        // Closing reports the matches that end at the end of the text (`$`).
        hs_close_stream(stream, scratch, collectMatch, context)
    }
}

/// The scans' callback: gathers (id, start, end) into the `MatchCollector` passed as context.
/// Non-zero stops the scan: a text is judged on its first `maxMatches` matches.
private func collectMatch(id: UInt32, from: UInt64, to: UInt64, flags: UInt32, context: UnsafeMutableRawPointer?) -> Int32 {
    let collector = Unmanaged<MatchCollector>.fromOpaque(context!).takeUnretainedValue()
    guard collector.matches.count < CompiledRuleSet.maxMatches else { return 1 }
    collector.matches.append((Int(id), Int(from), Int(to)))
    return collector.matches.count >= CompiledRuleSet.maxMatches ? 1 : 0
}

/// The key a compiled database is stored under (see `CompiledDatabaseStore`).
enum CacheKey {
    /// Changes when what a stored database means changes beyond its inputs.
    static let format = "bouncer vectorscan database 1"

    static func make(mode: UInt32, flags: UInt32, _ patterns: [[UInt8]]) -> [UInt8] {
        var platform = hs_platform_info_t()
        _ = hs_populate_platform(&platform)
        var key = Array("\(format)\n\(String(cString: hs_version()))\n".utf8)
        key.reserveCapacity(key.count + 64 + patterns.reduce(0) { $0 + $1.count + 4 })
        for number in [UInt64(platform.tune), platform.cpu_features, UInt64(mode), UInt64(flags), UInt64(patterns.count)] {
            withUnsafeBytes(of: number.littleEndian) { key.append(contentsOf: $0) }
        }
        for pattern in patterns {
            withUnsafeBytes(of: UInt32(pattern.count).littleEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: pattern)
        }
        return key
    }
}

/// Where a scan's callback puts what it finds; one per check, reused for each database.
final class MatchCollector {
    var matches: [(id: Int, start: Int, end: Int)] = []
}

/// Scratch space for scanning, one per concurrent check, reused across checks.
final class ScratchPool: Sendable {
    private let prototype: UncheckedPointer?
    private let free = Locked<[UncheckedPointer]>([])

    private struct UncheckedPointer: @unchecked Sendable {
        var pointer: OpaquePointer
    }

    init(databases: [Database]) {
        var scratch: OpaquePointer?
        for database in databases {
            let status = hs_alloc_scratch(database.handle, &scratch)
            precondition(status == HS_SUCCESS, "hs_alloc_scratch failed: \(status)")
        }
        prototype = scratch.map(UncheckedPointer.init)
    }

    deinit {
        for scratch in free.withLock({ $0 }) { hs_free_scratch(scratch.pointer) }
        if let prototype { hs_free_scratch(prototype.pointer) }
    }

    func with(_ body: (OpaquePointer) -> Void) {
        guard let prototype else { return }
        var scratch = free.withLock { $0.popLast() }
        if scratch == nil {
            var clone: OpaquePointer?
            precondition(hs_clone_scratch(prototype.pointer, &clone) == HS_SUCCESS, "hs_clone_scratch failed")
            scratch = UncheckedPointer(pointer: clone!)
        }
        body(scratch!.pointer)
        free.withLock { $0.append(scratch!) }
    }
}
