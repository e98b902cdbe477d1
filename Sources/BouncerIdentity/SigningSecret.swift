import Foundation

/// Where the token secret comes from: `BOUNCER_JWT_SECRET` (the secret itself), a file named by
/// `--jwt-secret-file`, or else a random 256-bit secret generated once into
/// `<data-dir>/jwt-secret` with mode 0600 and reused after restarts. The secret is the file's or
/// variable's text (a trailing newline dropped), used as the HMAC key as it is, so anything that
/// mints tokens for Bouncer signs with the same string.
public struct SigningSecret: Sendable {
    public enum Source: Sendable, Equatable {
        case environment
        case file(String)
        case generated(String)
    }

    public let key: [UInt8]
    public let source: Source
    /// Something an operator should hear about (a short secret, loose file permissions).
    public let warnings: [String]

    public static let minimumRecommendedBytes = 32

    public enum LoadError: Error, CustomStringConvertible {
        case empty(String)
        case unreadable(String, String)

        public var description: String {
            switch self {
            case .empty(let origin): "the JWT secret from \(origin) is empty"
            case .unreadable(let path, let reason): "cannot read the JWT secret file \(path): \(reason)"
            }
        }
    }

    public static func load(environmentValue: String?, file: String?, dataDirectory: String) throws -> SigningSecret {
        if let environmentValue, !environmentValue.isEmpty {
            return try make(text: environmentValue, source: .environment, origin: "BOUNCER_JWT_SECRET")
        }
        if let file {
            return try make(text: read(file), source: .file(file), origin: file)
        }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("jwt-secret").path
        if FileManager.default.fileExists(atPath: path) {
            var secret = try make(text: read(path), source: .generated(path), origin: path)
            if let mode = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, mode & 0o077 != 0 {
                secret = SigningSecret(key: secret.key, source: secret.source,
                                       warnings: secret.warnings + ["\(path) is readable by other users (mode \(String(mode, radix: 8))); chmod 600 it"])
            }
            return secret
        }
        return try generate(at: path)
    }

    private static func generate(at path: String) throws -> SigningSecret {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let text = Base64URL.encode(HMACSHA256.randomBytes(32))
        // Created with 0600 from the start (O_EXCL): the secret is never readable by others, not
        // even for a moment, and two processes starting at once cannot both write one.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return try make(text: read(path), source: .generated(path), origin: path) }
            throw LoadError.unreadable(path, String(cString: strerror(errno)))
        }
        let data = Array((text + "\n").utf8)
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard written == data.count else { throw LoadError.unreadable(path, "short write") }
        return SigningSecret(key: Array(text.utf8), source: .generated(path), warnings: [])
    }

    private static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LoadError.unreadable(path, error.localizedDescription)
        }
    }

    private static func make(text: String, source: Source, origin: String) throws -> SigningSecret {
        var text = text
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw LoadError.empty(origin) }
        var warnings: [String] = []
        if text.utf8.count < minimumRecommendedBytes {
            warnings.append("the JWT secret from \(origin) is \(text.utf8.count) bytes; use at least \(minimumRecommendedBytes)")
        }
        return SigningSecret(key: Array(text.utf8), source: source, warnings: warnings)
    }
}
