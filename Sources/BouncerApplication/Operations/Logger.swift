import BouncerDomain
import BouncerStore
import Foundation
import JSON
import Locking

/// JSON lines to standard output, one object a line: what container platforms collect. Lines are
/// buffered and written together (at most every 200 ms, or when 32 KiB gather, or at once for
/// errors), so logging every request costs no system call per request.
///
/// The writing happens on the logger's own queue, never on the thread that logged (an event
/// loop, for the access log): an output that takes its time (a pipe whose reader is slow) holds
/// up that queue alone. While it does, lines gather up to `bufferLimit`; past that they are
/// dropped (errors aside) and counted, and the next write says how many were lost.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warn, error

        /// A level by its name here, or by swift-log's (`trace`, `debug`, `info`, `notice`,
        /// `warning`, `error`, `critical`): each of those is the nearest level here that logs
        /// everything it would (`trace` is `debug`, `notice` is `info`, `critical` is `error`).
        public init?(name: String) {
            switch name.lowercased() {
            case "trace", "debug": self = .debug
            case "info", "notice": self = .info
            case "warn", "warning": self = .warn
            case "error", "critical": self = .error
            default: return nil
            }
        }

        /// Every name `init(name:)` takes.
        public static let acceptedNames = "trace, debug, info, notice, warning (or warn), error, critical"

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A field value, written as JSON.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .int(value) }
    }

    public let level: Level
    /// Lines not yet written, and what became of those the buffer had no room for.
    private struct Pending {
        var bytes: [UInt8] = []
        /// Lines dropped since the last write, with the buffer at its limit.
        var dropped = 0
        /// A write is queued on `flushQueue`: a full buffer asks for one only once.
        var flushQueued = false

        /// Adds a line written by `write`, or counts it dropped when the buffer is at
        /// `bufferLimit` (unless `keptPastLimit`). Returns whether the buffer has gathered
        /// `threshold` bytes with no write queued yet; if so, a write counts as queued from now.
        mutating func add(threshold: Int, keptPastLimit: Bool = false, _ write: (inout [UInt8]) -> Void) -> Bool {
            guard bytes.count < Logger.bufferLimit || keptPastLimit else {
                dropped += 1
                return false
            }
            write(&bytes)
            guard bytes.count >= threshold, !flushQueued else { return false }
            flushQueued = true
            return true
        }
    }

    private let buffer = Locked(Pending())
    /// Flushes so far; its lock makes flushes take turns. (Not a `Locked<Void>`: an empty value
    /// shares its address with the lock's own field, which ThreadSanitizer reports as a race.)
    private let flushes = Locked(0)
    private let output: Int32
    private let flushQueue = DispatchQueue(label: "bouncer.log")
    // Set once in init, cancelled in deinit: never shared mutable state.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    private static let flushThreshold = 32 * 1024
    /// What the buffer holds at most while the output does not take it.
    static let bufferLimit = 8 * 1024 * 1024

    public init(level: Level, output: Int32 = STDOUT_FILENO) {
        self.level = level
        self.output = output
        timer = DispatchSource.makeTimerSource(queue: flushQueue)
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200), leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.activate()
    }

    deinit {
        timer.cancel()
        flush()
    }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        guard level >= self.level else { return }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        Self.begin(level, message, to: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            JSONText.appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            switch value {
            case .string(let text): JSONText.appendString(text, to: &line)
            case .int(let number): line.appendDecimal(number)
            case .double(let number): line.append(contentsOf: (number.isFinite ? String(number) : "null").utf8)
            case .bool(let flag): line.append(contentsOf: (flag ? "true" : "false").utf8)
            }
        }
        finish(&line, level)
    }

    /// A line at `level` with `message`, its further members written by `members` (each
    /// beginning with a comma, the closing brace and newline included), straight into the shared
    /// buffer: for lines written for every request, where a line of its own first cost an
    /// allocation and a copy each time.
    package func write(_ level: Level, _ message: String, members: (inout [UInt8]) -> Void) {
        guard level >= self.level else { return }
        let full = buffer.withLock { pending in
            pending.add(threshold: Self.flushThreshold) { line in
                Self.begin(level, message, to: &line)
                members(&line)
            }
        }
        if full { flushQueue.async { self.flush() } }
    }

    /// A duration in milliseconds to the microsecond (`12.345`), written digit by digit: printing
    /// the `Double` took longer than the rest of the access log line.
    package static func appendMilliseconds(_ duration: Duration, to line: inout [UInt8]) {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        line.appendDecimal(Int(microseconds / 1000))
        let fraction = Int(microseconds % 1000)
        line.append(UInt8(ascii: "."))
        line.append(UInt8(48 + fraction / 100))
        line.append(UInt8(48 + fraction / 10 % 10))
        line.append(UInt8(48 + fraction % 10))
    }

    /// `{"time":…,"level":…,"msg":…`: what every line starts with.
    private static func begin(_ level: Level, _ message: String, to line: inout [UInt8]) {
        line.append(#"{"time":""#)
        Timestamp.appendNow(to: &line)
        line.append(#"","level":""#)
        line.append(contentsOf: level.name.utf8)
        JSONText.appendMember(#"","msg":"#, message, to: &line)
    }

    /// Ends a line and buffers it; errors, and a full buffer, are written without waiting for the
    /// timer.
    private func finish(_ line: inout [UInt8], _ level: Level) {
        line.append(contentsOf: "}\n".utf8)
        // An error is written at once (as the logger's queue gets to it), whatever else waits,
        // and kept past the limit: it is what an operator looks for when lines are lost.
        let isError = level >= .error
        let full = buffer.withLock { pending in
            pending.add(threshold: isError ? 0 : Self.flushThreshold, keptPastLimit: isError) { $0.append(contentsOf: line) }
        }
        if full { flushQueue.async { self.flush() } }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }

    /// Writes everything buffered, on the calling thread. One flush at a time, so two never
    /// interleave their lines.
    public func flush() {
        flushes.withLock { count in
            count += 1
            let (bytes, dropped) = buffer.withLock { pending -> ([UInt8], Int) in
                defer {
                    pending.bytes.removeAll(keepingCapacity: pending.bytes.capacity <= 4 * Self.flushThreshold)
                    pending.dropped = 0
                    pending.flushQueued = false
                }
                return (pending.bytes, pending.dropped)
            }
            write(bytes)
            if dropped > 0 {
                var line: [UInt8] = []
                Self.begin(.warn, "log lines dropped: the output did not take them in time", to: &line)
                line.append(#","dropped":"#)
                line.appendDecimal(dropped)
                line.append("}\n")
                write(line)
            }
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(output, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // An output set non-blocking by whoever gave it: wait until it takes more
                    // rather than spin.
                    var ready = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 1000)
                    continue
                }
                return
            }
            offset += written
        }
    }
}
