import Foundation
import Locking

/// `bouncer serve` did not log that it listens; the description holds its output.
public struct ServiceStartError: Error, CustomStringConvertible {
    public var description: String
}

/// Which store the black-box tests run the binary on: SQLite (the default), or PostgreSQL when
/// `BOUNCER_TEST_STORE=postgres` (each service then gets a database of its own on the cluster of
/// `BOUNCER_TEST_POSTGRES_URL`). With `BOUNCER_TEST_POSTGRES_POOLER_URL` too, services reach it
/// through that pooler (PgBouncer in transaction mode), listening for changes directly
/// (`--database-listen-url`); commands (`migrate`, `backup`) go to the database itself.
public enum TestStore {
    public static var isPostgres: Bool { ProcessInfo.processInfo.environment["BOUNCER_TEST_STORE"] == "postgres" }

    /// One database for each data directory, so a service started again on the same directory
    /// (a restart) finds what it kept, as it would in its SQLite file.
    private static let databases = Locked<[String: PostgresTestDatabase]>([:])

    /// `--database-url` for a service or command run with `arguments` in `directory`, when the
    /// tests run on PostgreSQL.
    static func databaseArguments(_ arguments: [String], directory: URL?) throws -> (arguments: [String], database: PostgresTestDatabase?) {
        guard isPostgres, !arguments.contains("--database-url") else { return ([], nil) }
        let dataDirectory = arguments.firstIndex(of: "--data-dir").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            ?? (directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent("data").path
        let database = try databases.withLock { databases in
            if let existing = databases[dataDirectory] { return existing }
            let created = try PostgresTestDatabase()
            databases[dataDirectory] = created
            return created
        }
        if !["migrate", "backup"].contains(arguments.first ?? ""), let pooled = database.pooledURL {
            return (["--database-url", pooled, "--database-listen-url", database.url], database)
        }
        return (["--database-url", database.url], database)
    }
}

/// The real `bouncer` binary, started as a child process on a loopback port the kernel picks.
public final class ServiceProcess: @unchecked Sendable {
    public let process = Process()
    public private(set) var port = 0
    /// The service's PostgreSQL database, when the tests run on PostgreSQL; dropped with the service.
    public let database: PostgresTestDatabase?
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
        // `serve`, `migrate` and `backup` work on the store the services of the same data directory use.
        let onStore = ["serve", "migrate", "backup"].contains(arguments.first ?? "")
            ? try TestStore.databaseArguments(arguments, directory: directory).arguments : []
        process.arguments = arguments + onStore
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        return try process.runCapturingOutput()
    }

    /// How many instances a service of the black-box tests is: 1, or with `BOUNCER_TEST_INSTANCES=N`
    /// on PostgreSQL, N on one database.
    public static var defaultInstances: Int {
        TestStore.isPostgres ? max(1, Int(ProcessInfo.processInfo.environment["BOUNCER_TEST_INSTANCES"] ?? "") ?? 1) : 1
    }

    /// The other instances of this service, on the same data directory and database; `client()`
    /// sends each request to the next instance in turn.
    public private(set) var siblings: [ServiceProcess] = []

    /// Starts `bouncer serve` and waits until it logs that it listens; with `instances` more than
    /// one, as many on the same data directory (so the same database), one after another.
    /// With `openFileLimit`, the binary runs under `prlimit` with that many descriptors at most.
    public init(arguments: [String] = [], environment: [String: String] = [:], directory: URL? = nil,
                openFileLimit: Int? = nil, startTimeout: Duration = .seconds(20), instances: Int = ServiceProcess.defaultInstances) throws {
        let (databaseArguments, database) = try TestStore.databaseArguments(arguments, directory: directory)
        self.database = database
        let serve = ["serve", "--port", "0"] + arguments + databaseArguments
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
        do {
            // The start's time counts from its slot: dozens of tests starting services at once on
            // a busy machine would otherwise share its cores and each run past its timeout.
            Self.startingSlots.wait()
            defer { Self.startingSlots.signal() }
            try process.run()
            Self.running.withLock { _ = $0.insert(process.processIdentifier) }
            try output.close()
            let deadline = ContinuousClock.now + TestTiming.scaled(startTimeout)
            while ContinuousClock.now < deadline {
                if let line = lines.first(where: { $0.contains("\"msg\":\"listening\"") }),
                   let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                   let port = object["port"] as? Int {
                    self.port = port
                    break
                }
                if !isRunning { break }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard port != 0 else {
            if isRunning { kill(process.processIdentifier, SIGKILL); _ = waitForExit(timeout: .seconds(10)) }
            throw ServiceStartError(description: "bouncer did not start; output:\n\(text)")
        }
        siblings = try (1..<max(1, instances)).map { _ in
            try ServiceProcess(arguments: arguments, environment: environment, directory: directory, startTimeout: startTimeout, instances: 1)
        }
    }

    /// Services starting at once: about two a core. A start (the bundled texts parsed, the store
    /// opened and migrated, the rules compiled) is all CPU, and a start never waits for another.
    private static let startingSlots = DispatchSemaphore(value: max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// Services started and not yet released: killed when the test process exits, should one
    /// still be held then (a service must not outlive the tests that started it).
    private static let running: Locked<Set<pid_t>> = {
        atexit {
            for pid in ServiceProcess.running.withLock({ $0 }) { kill(pid, SIGKILL) }
        }
        return Locked([])
    }()

    deinit {
        Self.running.withLock { _ = $0.remove(process.processIdentifier) }
        if isRunning {
            kill(process.processIdentifier, SIGKILL)
            // Reaped here: a deinit often runs on the tasks' pool, where nothing else would.
            while isRunning { Thread.sleep(forTimeInterval: 0.005) }
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    public var text: String { String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self) }
    public var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// A client of this service: of its one instance, or of each instance in turn, waiting after
    /// each change until every instance has it in force. It connects again when the service
    /// closed its connection while idle.
    public func client() throws -> RawHTTPClient {
        guard !siblings.isEmpty else {
            let client = try RawHTTPClient(port: port)
            client.reconnectsWhenClosedIdle = true
            return client
        }
        let instances = [self] + siblings
        // Within a second of the answer, or, for a change that took long to put in force where it
        // was made (a large import compiles for seconds), within that time again.
        return try RawHTTPClient(rotatingOver: instances.map(\.port)) { took in
            try ServiceCluster.level(instances, timeout: max(.seconds(1), took * 2))
        }
    }

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

    /// Asks the service to stop (SIGTERM) and waits for it to end; its exit status, nil if it
    /// still runs at the deadline. The grace its requests get (8 s) fits within the wait.
    public func stop(timeout: Duration = .seconds(20)) -> Int32? {
        signal(SIGTERM)
        return waitForExit(timeout: timeout)
    }

    /// The end of the service's output, for a failure's message.
    public var outputTail: String { "output ends:\n" + text.suffix(3_000) }

    /// Waits for the process to exit; nil if it is still running at the deadline.
    public func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return exitStatus
    }

    /// Whether the service still runs (its end is learnt with `waitpid`, see `exitStatus`).
    public var isRunning: Bool { exitStatus == nil }

    /// The exit status once the process has ended, nil while it runs. Asked of the kernel with
    /// `waitpid`, not of `Process.isRunning`: Foundation learns of a child's end when a descriptor
    /// the child inherited closes, and a service started at the same moment can inherit it too
    /// and hold it open: an ended service could "run" on for the tests while that one lived.
    private var exitStatus: Int32? {
        reaped.withLock { reaped in
            if let status = reaped { return status }
            let pid = process.processIdentifier
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, WNOHANG) } while result == -1 && errno == EINTR
            if result == pid {
                reaped = exitCode(waitStatus: status)
            } else if result == -1 && !process.isRunning {
                // Foundation's reaper took it first: its status is Foundation's to tell.
                reaped = process.terminationStatus
            }
            return reaped
        }
    }
    private let reaped = Locked<Int32?>(nil)
}
