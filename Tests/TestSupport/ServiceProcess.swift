import Foundation

/// `bouncer serve` did not log that it listens; the description holds its output.
public struct ServiceStartError: Error, CustomStringConvertible {
    public var description: String
}

/// The real `bouncer` binary, started as a child process on a loopback port the kernel picks.
public final class ServiceProcess: @unchecked Sendable {
    public let process = Process()
    public private(set) var port = 0
    /// The process writes its output to this file; reading a file has none of a pipe's races
    /// between the last lines written and the process's exit.
    private let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("bouncer-output-\(UUID().uuidString).log").path

    /// The built binary: `BOUNCER_BINARY`, else `bouncer` beside the test runner.
    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["BOUNCER_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // The runner may sit inside an .xctest bundle directory.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("bouncer").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("bouncer")
    }

    /// Runs `bouncer` with `arguments` to completion; returns its exit status and output.
    public static func run(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts `bouncer serve` and waits until it logs that it listens.
    /// With `openFileLimit`, the binary runs under `prlimit` with that many descriptors at most.
    public init(arguments: [String] = [], environment: [String: String] = [:], directory: URL? = nil,
                openFileLimit: Int? = nil, startTimeout: Duration = .seconds(20)) throws {
        let serve = ["serve", "--port", "0"] + arguments
        if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFileLimit):\(openFileLimit)", Self.binary.path] + serve
        } else {
            process.executableURL = Self.binary
            process.arguments = serve
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        let deadline = ContinuousClock.now + TestTiming.scaled(startTimeout)
        while ContinuousClock.now < deadline {
            if let line = lines.first(where: { $0.contains("\"msg\":\"listening\"") }),
               let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let port = object["port"] as? Int {
                self.port = port
                return
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        if process.isRunning { process.terminate() }
        throw ServiceStartError(description: "bouncer did not start; output:\n\(text)")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    public var text: String { String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self) }
    public var lines: [String] { text.split(separator: "\n").map(String.init) }

    public func client() throws -> RawHTTPClient { try RawHTTPClient(port: port) }

    /// Waits until the output contains `needle` (output is read as it comes, so a line written
    /// just before exit may still be on its way).
    public func waitForOutput(containing needle: String, timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if text.contains(needle) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return text.contains(needle)
    }

    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit; nil if it is still running at the deadline.
    public func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard !process.isRunning else { return nil }
        return process.terminationStatus
    }
}
