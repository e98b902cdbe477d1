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

    private init(handle: OpaquePointer) {
        self.handle = handle
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
    static func literals(_ literals: [[UInt8]]) throws(CompileError) -> Database? {
        guard !literals.isEmpty else { return nil }
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
        return try finish(status, database, error)
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
    static func regexes(_ patterns: [String]) throws(CompileError) -> Database? {
        guard !patterns.isEmpty else { return nil }
        var database: OpaquePointer?
        var error: UnsafeMutablePointer<hs_compile_error_t>?
        let cStrings = patterns.map { strdup($0)! }
        defer { cStrings.forEach { free($0) } }
        let ids = (0..<UInt32(patterns.count)).map { $0 }
        let flags = [UInt32](repeating: CompiledRuleSet.regexFlags, count: patterns.count)
        let status = cStrings.map { UnsafePointer($0) as UnsafePointer<CChar>? }.withUnsafeBufferPointer { expressions in
            hs_compile_multi(expressions.baseAddress, flags, ids, UInt32(patterns.count), regexMode, nil, &database, &error)
        }
        return try finish(status, database, error)
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
