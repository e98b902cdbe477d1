import Dispatch
import Foundation
@testable import HTTPServer
import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct LoggerTests {
    @Test func requestDurationsAreMillisecondsToTheMicrosecond() {
        func written(_ duration: Duration) -> String {
            var line: [UInt8] = []
            Logger.appendMilliseconds(duration, to: &line)
            return String(decoding: line, as: UTF8.self)
        }
        #expect(written(.zero) == "0.000")
        #expect(written(.microseconds(90)) == "0.090")
        #expect(written(.nanoseconds(1_866_519)) == "1.866")
        #expect(written(.milliseconds(12) + .microseconds(5)) == "12.005")
        #expect(written(.seconds(75)) == "75000.000")
        // A clock that stepped back is not a negative duration in the log.
        #expect(written(.microseconds(-3)) == "0.000")
    }

    @Test func swiftLogsLevelNamesAreAccepted() {
        let expected: [(String, Logger.Level)] = [("trace", .debug), ("debug", .debug), ("info", .info), ("notice", .info),
                                                   ("warning", .warn), ("warn", .warn), ("WARNING", .warn), ("error", .error),
                                                   ("critical", .error)]
        for (name, level) in expected { #expect(Logger.Level(name: name) == level, "\(name)") }
        for name in ["", "verbose", "fatal", "warnings"] { #expect(Logger.Level(name: name) == nil, "\(name)") }
    }

    /// The access log's line, written straight into the shared buffer among other lines, is one
    /// JSON object with every field, its strings escaped.
    @Test func accessLogLinesAreWholeJSONObjectsAmongOtherLines() throws {
        let lines = try Self.written { logger in
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<500 {
                    logger.request(AccessLogEntry(requestID: "r-\(thread)-\(index)", method: "GET", path: "/v1/\"quoted\"\n/\(index)",
                                                  route: nil, status: 200 + thread, bytes: index - 1, duration: .microseconds(index)))
                    logger.info("between", ["thread": .int(thread)])
                }
            }
        }.split(separator: "\n")
        #expect(lines.count == 4 * 500 * 2)
        var requests = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["msg"] as? String == "request" else { continue }
            requests += 1
            let id = try #require(object["request_id"] as? String)
            let parts = id.split(separator: "-")
            let (thread, index) = (try #require(Int(parts[1])), try #require(Int(parts[2])))
            #expect(object["level"] as? String == "info")
            #expect(object["method"] as? String == "GET")
            #expect(object["path"] as? String == "/v1/\"quoted\"\n/\(index)")
            #expect(object["status"] as? Int == 200 + thread)
            #expect(object["bytes"] as? Int == index - 1)
            #expect((object["duration_ms"] as? NSNumber)?.doubleValue == Double(index) / 1000)
            #expect((object["time"] as? String)?.count == 24)
        }
        #expect(requests == 4 * 500)
    }

    /// Threads buffer their lines apart: every line is written whole, once, and each thread's lines
    /// keep their order.
    @Test func linesLoggedOnManyThreadsAreWrittenWholeAndInEachThreadsOrder() throws {
        let text = try Self.written { logger in
            DispatchQueue.concurrentPerform(iterations: 6) { thread in
                for index in 0..<2000 { logger.info("line", ["thread": .int(thread), "index": .int(index)]) }
            }
        }
        var next = [Int: Int]()
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let thread = try #require(object["thread"] as? Int)
            #expect(object["index"] as? Int == next[thread, default: 0], "thread \(thread)'s lines in order")
            next[thread, default: 0] += 1
        }
        #expect(next == Dictionary(uniqueKeysWithValues: (0..<6).map { ($0, 2000) }))
    }

    /// An output that takes nothing (a pipe nobody reads) holds up no thread that logs: lines
    /// gather up to the buffer's limit, the rest are dropped and counted (an error is kept), and once the output
    /// takes them again every line logged is either written whole or counted in the note that
    /// says how many were lost.
    @Test func aStalledOutputHoldsUpNoCallerAndEveryLineIsWrittenOrCounted() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writeEnd = ends[1]
        let logger = Logger(level: .info, output: writeEnd)
        // About 20 MB of access log lines: more than twice the buffer's limit with the pipe's
        // capacity, so some are dropped whenever the logger's queue takes its 32 KiB.
        let total = 120_000
        for index in 0..<total {
            logger.request(AccessLogEntry(requestID: "r\(index)", method: "GET", path: "/v1/stalled", status: 200, bytes: index,
                                          duration: .microseconds(index)))
        }
        logger.error("after the limit", ["kept": .bool(true)])
        // Every call above returned with nothing reading the pipe. Now read it to its end.
        let reader = Thread {
            logger.flush()
            close(writeEnd)
        }
        reader.start()
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            output.append(contentsOf: chunk[0..<count])
        }
        var written = 0, writtenBytes = 0, dropped = 0, errors = 0, lastIndex = -1
        for line in output.split(separator: UInt8(ascii: "\n")) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], "a whole line")
            if object["msg"] as? String == "request" {
                let index = try #require(object["bytes"] as? Int)
                #expect(index > lastIndex, "lines in the order logged")
                lastIndex = index
                written += 1
                writtenBytes += line.count + 1
            } else if object["level"] as? String == "error" {
                #expect(object["kept"] as? Bool == true)
                errors += 1
            } else {
                #expect(object["level"] as? String == "warn")
                dropped += try #require(object["dropped"] as? Int)
            }
        }
        #expect(errors == 1, "an error is kept past the limit")
        #expect(dropped > 0, "the buffer's limit was reached")
        #expect(written + dropped == total)
        #expect(writtenBytes >= Logger.bufferLimit, "the buffer filled to its limit before dropping")
    }

    /// What a logger at info wrote to a file while `body` ran, once flushed.
    private static func written(_ body: (Logger) -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logger-\(UUID().uuidString).jsonl").path
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(output >= 0)
        defer { close(output); unlink(path) }
        let logger = Logger(level: .info, output: output)
        body(logger)
        logger.flush()
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
