import BouncerStore
import Foundation

/// Backups of a PostgreSQL store with the server's own tool: `pg_dump` in its custom format (one
/// consistent snapshot, restored with `pg_restore`). As with SQLite's copies, the dump is written
/// beside its destination and renamed into place once complete and synced.
public enum PostgresDump {
    public static func dump(url: String, to destination: String) throws -> Backup.Result {
        guard !FileManager.default.fileExists(atPath: destination) else { throw Backup.Failure.exists(destination) }
        guard let tool = locate() else {
            throw Backup.Failure.failed("pg_dump is not installed (Debian: postgresql-client)")
        }
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = destination + ".partial"
        let errors = destination + ".errors"
        try? FileManager.default.removeItem(atPath: partial)
        defer { try? FileManager.default.removeItem(atPath: errors) }
        do {
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            let errorOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            defer { try? errorOutput.close() }
            let (target, password) = withoutPassword(url)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["--format=custom", "--no-password", "--file=\(partial)", "--dbname=\(target)"]
            // The password travels in the environment, not in the arguments every user of the
            // host can list.
            var environment = ProcessInfo.processInfo.environment
            if let password { environment["PGPASSWORD"] = password }
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errorOutput
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                let message = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
                throw Backup.Failure.failed("pg_dump exited with \(process.terminationStatus): "
                                            + message.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let fd = open(partial, O_RDONLY)
            if fd >= 0 {
                fsync(fd)
                close(fd)
            }
            guard rename(partial, destination) == 0 else { throw Backup.Failure.failed(String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        return Backup.Result(path: destination, bytes: bytes)
    }

    /// `pg_dump` on the PATH, else the newest of Debian's server installations.
    static func locate() -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/pg_dump" }
        let installed = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
        return (paths + installed).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A connection URI without its password, and the password (decoded); a key-value
    /// connection string is left as it is.
    static func withoutPassword(_ url: String) -> (url: String, password: String?) {
        guard var components = URLComponents(string: url), let password = components.password else { return (url, nil) }
        components.password = nil
        return (components.string ?? url, password)
    }
}

extension PostgresStore {
    public func backup(to destination: String) throws -> Backup.Result { try PostgresDump.dump(url: listenURL ?? url, to: destination) }
    public var backupExtension: String { "dump" }
}
