import BouncerModeration
import COpenSSL
import Foundation

/// Compiled rule databases kept as files in `<data-dir>/rules-cache`, so a restart with many rules
/// is ready in a fraction of a second instead of compiling them again.
///
/// A file is named by the SHA-256 of its key and holds a magic number, the SHA-256 of its
/// contents, and the contents; a file that is short, torn or changed fails that check and is
/// ignored (the rules are compiled, and the file written again). Files are written to a temporary
/// name and renamed, so a reader never sees half of one. Only the most recently used files are
/// kept.
package final class CompiledDatabaseFiles: CompiledDatabaseStore {
    package static let magic = Array("BNCRHSDB".utf8)
    /// Files kept: enough for several whole rule sets of a few shards each.
    package static let filesKept = 64

    package let directory: URL
    private let logger: Logger?

    package init(directory: URL, logger: Logger? = nil) {
        self.directory = directory
        self.logger = logger
    }

    package func load(key: [UInt8]) -> [UInt8]? {
        let url = fileURL(key)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let bytes = [UInt8](data)
        let header = Self.magic.count + 32
        guard bytes.count > header, Array(bytes[0..<Self.magic.count]) == Self.magic else {
            logger?.warn("compiled rules file ignored", ["file": .string(url.lastPathComponent), "reason": .string("not a rules database file")])
            return nil
        }
        let contents = Array(bytes[header...])
        guard Self.sha256(contents) == Array(bytes[Self.magic.count..<header]) else {
            logger?.warn("compiled rules file ignored", ["file": .string(url.lastPathComponent), "reason": .string("its checksum does not match")])
            return nil
        }
        // Used now: the newest files are the ones kept.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return contents
    }

    package func save(_ bytes: [UInt8], key: [UInt8]) {
        let url = fileURL(key)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(Self.magic + Self.sha256(bytes) + bytes).write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
            prune()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            logger?.warn("compiled rules not saved; the next start compiles them again",
                         ["directory": .string(directory.path), "error": .string(String(describing: error))])
        }
    }

    private func fileURL(_ key: [UInt8]) -> URL {
        directory.appendingPathComponent(Self.sha256(key).map { String(format: "%02x", $0) }.joined() + ".hsdb")
    }

    /// Removes all but the most recently used `filesKept` files.
    private func prune() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return }
        let files = names.filter { $0.hasSuffix(".hsdb") }.map { directory.appendingPathComponent($0) }
        guard files.count > Self.filesKept else { return }
        let dated = files.map { url in
            (url, (try? manager.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast)
        }
        for (url, _) in dated.sorted(by: { $0.1 > $1.1 }).dropFirst(Self.filesKept) { try? manager.removeItem(at: url) }
    }

    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { buffer in _ = SHA256(buffer.baseAddress, buffer.count, &digest) }
        return digest
    }
}
