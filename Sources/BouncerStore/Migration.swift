import COpenSSL
import Foundation

/// One schema migration: a plain SQL file `NNNN_name.sql`. The files are the single source of
/// truth for the schema; once applied, a file must never change (its checksum is recorded).
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    public var fileName: String { String(format: "%04d_%@.sql", version, name) }

    /// SHA-256 of the file's bytes, in hex.
    public var checksum: String { Self.sha256Hex(Array(sql.utf8)) }

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1, "EVP_Digest(SHA-256) failed")
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }

    /// Every `NNNN_name.sql` file of a directory, in version order. Other files are ignored; a
    /// misnamed `.sql` file or two files with one version are errors, not silently skipped.
    public static func load(directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.directoryUnreadable(directory.path)
        }
        var migrations: [Migration] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            let stem = fileName.dropLast(4)
            let parts = stem.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 4, let version = Int(parts[0]), version > 0,
                  parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw MigrationError.badFileName(fileName)
            }
            let data = try Data(contentsOf: directory.appendingPathComponent(fileName))
            guard let sql = String(data: data, encoding: .utf8) else { throw MigrationError.badFileName(fileName) }
            migrations.append(Migration(version: version, name: String(parts[1]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw MigrationError.duplicateVersion(next.version)
        }
        return migrations
    }
}

public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryUnreadable(String)
    case badFileName(String)
    case duplicateVersion(Int)
    /// An applied migration's file no longer matches what was applied.
    case changedAfterApplied(version: Int, fileName: String)
    /// The store has a migration this binary does not know: it was migrated by a newer release.
    case storeIsNewer(version: Int, name: String)
    case failed(fileName: String, reason: String)
    case foreignKeyViolation(fileName: String)

    public var description: String {
        switch self {
        case .directoryUnreadable(let path):
            "cannot read the migrations directory \(path)"
        case .badFileName(let name):
            "migration file \(name) is not named NNNN_name.sql (four digits, then letters, digits or _)"
        case .duplicateVersion(let version):
            "two migration files have version \(version)"
        case .changedAfterApplied(let version, let fileName):
            "migration \(version) (\(fileName)) was changed after it was applied to this store; "
                + "applied migrations must never be edited: restore the file and add a new migration instead"
        case .storeIsNewer(let version, let name):
            "the store has migration \(version) (\(name)) which this bouncer does not know: "
                + "it was migrated by a newer release; run that release or restore a backup"
        case .failed(let fileName, let reason):
            "migration \(fileName) failed and was rolled back: \(reason)"
        case .foreignKeyViolation(let fileName):
            "migration \(fileName) leaves rows that break a foreign key; it was rolled back"
        }
    }
}
