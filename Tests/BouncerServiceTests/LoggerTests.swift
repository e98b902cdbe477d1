import Dispatch
import Foundation
import Testing
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

    /// Threads buffer their lines apart: every line is written whole, once, and each thread's lines
    /// keep their order.
    @Test func linesLoggedOnManyThreadsAreWrittenWholeAndInEachThreadsOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logger-\(UUID().uuidString).jsonl").path
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(output >= 0)
        defer { close(output); unlink(path) }
        let logger = Logger(level: .info, output: output)
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            for index in 0..<2000 { logger.info("line", ["thread": .int(thread), "index": .int(index)]) }
        }
        logger.flush()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var next = [Int: Int]()
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let thread = try #require(object["thread"] as? Int)
            #expect(object["index"] as? Int == next[thread, default: 0], "thread \(thread)'s lines in order")
            next[thread, default: 0] += 1
        }
        #expect(next == Dictionary(uniqueKeysWithValues: (0..<6).map { ($0, 2000) }))
    }
}
