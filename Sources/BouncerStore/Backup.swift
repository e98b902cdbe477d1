import Foundation

/// Consistent copies of a live store: what a backup made, and why one failed. Each store takes
/// its copies its own way (SQLite's online backup API, PostgreSQL's pg_dump).
public enum Backup {
    public struct Result: Sendable {
        public var path: String
        public var bytes: Int

        public init(path: String, bytes: Int) {
            self.path = path
            self.bytes = bytes
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case exists(String)
        case failed(String)

        public var description: String {
            switch self {
            case .exists(let path): "\(path) exists already; choose a new path for the backup"
            case .failed(let reason): "the backup failed: \(reason)"
            }
        }
    }
}
