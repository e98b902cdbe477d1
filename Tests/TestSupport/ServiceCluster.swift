import Foundation

/// Several `bouncer serve` processes on one data directory, so on one PostgreSQL database when
/// the tests run on PostgreSQL (they share the directory's token secret too, as instances behind
/// one load balancer share theirs).
public final class ServiceCluster: @unchecked Sendable {
    public let instances: [ServiceProcess]

    /// Starts `count` instances one after another (the first creates the secret and the schema).
    public init(count: Int, dataDirectory: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        var started: [ServiceProcess] = []
        for _ in 0..<count {
            started.append(try ServiceProcess(arguments: ["--data-dir", dataDirectory] + arguments, environment: environment, instances: 1))
        }
        instances = started
    }

    /// The versions of shared state each instance has in force (from its `/metrics`).
    public static func versions(_ instance: ServiceProcess) throws -> [String: Double] {
        let client = try instance.client()
        defer { client.close() }
        return versions(inMetrics: try client.request("GET", "/metrics").text)
    }

    /// The `bouncer_*_version` gauges of a `/metrics` page: the versions of the shared state
    /// (rules, settings, overrides, bans) an instance has in force.
    public static func versions(inMetrics text: String) -> [String: Double] {
        var versions: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0].hasPrefix("bouncer_"), parts[0].hasSuffix("_version"), let value = Double(parts[1]) else { continue }
            versions[String(parts[0])] = value
        }
        return versions
    }

    /// Waits until every instance has the same versions in force (what one instance changed is
    /// in force on all), and returns how long that took; throws after `timeout`.
    @discardableResult
    public func level(timeout: Duration = .seconds(1)) throws -> Duration { try Self.level(instances, timeout: timeout) }

    /// As `level`, for any instances on one database.
    @discardableResult
    public static func level(_ instances: [ServiceProcess], timeout: Duration = .seconds(1)) throws -> Duration {
        let started = ContinuousClock.now
        let deadline = started + TestTiming.scaled(timeout)
        while true {
            let all = try instances.map(versions)
            if all.allSatisfy({ $0 == all[0] }) { return ContinuousClock.now - started }
            guard ContinuousClock.now < deadline else {
                throw ServiceStartError(description: "the instances did not agree within \(timeout): \(all)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
