import BouncerDomain
import BouncerStore
import Foundation
import HTTPServer
import JSON
import Locking

/// JSON lines to standard output, one object a line: what container platforms collect. Lines are
/// buffered and written together (at most every 200 ms, or when 32 KiB gather, or at once for
/// errors), so logging every request costs no system call per request.
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
    private let buffer = Locked<[UInt8]>([])
    /// Flushes so far; its lock makes flushes take turns. (Not a `Locked<Void>`: an empty value
    /// shares its address with the lock's own field, which ThreadSanitizer reports as a race.)
    private let flushes = Locked(0)
    private let output: Int32
    private let flushQueue = DispatchQueue(label: "bouncer.log")
    // Set once in init, cancelled in deinit: never shared mutable state.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    private static let flushThreshold = 32 * 1024

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

    /// The access log line of a request, at info. The same JSON as `info("request", [...])` with
    /// these fields, written without building a field list: it runs for every request.
    public func request(_ entry: AccessLogEntry) {
        guard Level.info >= level else { return }
        // Written straight into the shared buffer: a line of its own first cost an allocation
        // and a copy for every request.
        let full = buffer.withLock { line in
            Self.begin(.info, "request", to: &line)
            JSONText.appendMember(#","request_id":"#, entry.requestID, to: &line)
            JSONText.appendMember(#","method":"#, entry.method, to: &line)
            JSONText.appendMember(#","path":"#, entry.path, to: &line)
            line.append(#","status":"#)
            line.appendDecimal(entry.status)
            line.append(#","bytes":"#)
            line.appendDecimal(entry.bytes)
            line.append(#","duration_ms":"#)
            Self.appendMilliseconds(entry.duration, to: &line)
            line.append("}\n")
            return line.count >= Self.flushThreshold
        }
        if full { flush() }
    }

    /// A duration in milliseconds to the microsecond (`12.345`), written digit by digit: printing
    /// the `Double` took longer than the rest of the access log line.
    static func appendMilliseconds(_ duration: Duration, to line: inout [UInt8]) {
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

    /// Ends a line and buffers it; errors, and a full buffer, are written at once.
    private func finish(_ line: inout [UInt8], _ level: Level) {
        line.append(contentsOf: "}\n".utf8)
        let full = buffer.withLock { buffer in
            buffer.append(contentsOf: line)
            return buffer.count >= Self.flushThreshold
        }
        if full || level >= .error { flush() }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }

    /// Writes everything buffered. One flush at a time, so two never interleave their lines.
    public func flush() {
        flushes.withLock { count in
            count += 1
            write(buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            })
        }
    }

    private func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(output, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
