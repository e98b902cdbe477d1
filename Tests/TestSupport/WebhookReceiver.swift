import Foundation

/// A webhook receiver in a process of its own (Tests/webhooks/receiver.py): it checks every
/// delivery's signature with the Standard Webhooks reference library and logs each request. It
/// can be stopped and started again on the same port, as a receiver that goes down and comes back.
public final class WebhookReceiver: @unchecked Sendable {
    public struct Record: Equatable {
        public var webhookID: String
        public var type: String?
        public var verified: Bool
    }

    public let port: Int
    private let secret: String
    private let status: Int
    private let delay: Double
    private let log: TemporaryDirectory
    private var process: Process?

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The interpreter with `standardwebhooks` (scripts/webhook-receiver-venv.sh installs it).
    private static var python: URL { root.appendingPathComponent(".build/webhooks-venv/bin/python") }

    /// A receiver for `secret` on a free port (not started yet), answering `status` after `delay` seconds.
    public init(secret: String, status: Int = 204, delay: Double = 0) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw PostgresTestDatabase.Unavailable(description: "no Python with standardwebhooks at \(Self.python.path): "
                                                    + "run scripts/webhook-receiver-venv.sh (make test does)")
        }
        port = try Self.freePort()
        self.secret = secret
        self.status = status
        self.delay = delay
        log = try TemporaryDirectory()
    }

    public var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Starts it and waits until it listens.
    public func start() throws {
        let process = Process()
        process.executableURL = Self.python
        process.arguments = [Self.root.appendingPathComponent("Tests/webhooks/receiver.py").path, "--port", String(port), "--secret", secret,
                             "--log", log.path("requests.jsonl"), "--status", String(status), "--delay", String(delay)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("listening") else {
            throw PostgresTestDatabase.Unavailable(description: "the webhook receiver did not start")
        }
    }

    /// Kills it (the port refuses connections until it is started again).
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        _ = process.waitForEnd()
        self.process = nil
    }

    deinit { stop() }

    /// Every request received so far, in order.
    public var records: [Record] {
        let text = (try? String(contentsOfFile: log.path("requests.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Record(webhookID: object["webhook_id"] as? String ?? "", type: object["type"] as? String,
                          verified: object["verified"] as? Bool ?? false)
        }
    }

    /// Waits until `condition` holds of the records (true), or `timeout` passes (false).
    public func wait(timeout: Duration, until condition: ([Record]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if condition(records) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(records)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw PostgresTestDatabase.Unavailable(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
