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
}
