import COpenSSL

/// HMAC-SHA256 and a constant-time comparison, from OpenSSL's libcrypto.
public enum HMACSHA256 {
    public static let outputSize = 32

    public static func authenticate<Message: Collection<UInt8>>(_ message: Message, key: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let messageBytes = Array(message)
        let result = key.withUnsafeBytes { keyBytes in
            messageBytes.withUnsafeBufferPointer { data in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), data.baseAddress, data.count, &output, &length)
            }
        }
        precondition(result != nil && length == UInt32(outputSize), "HMAC-SHA256 failed")
        return Array(output.prefix(outputSize))
    }

    /// Equal without revealing, through timing, where two MACs first differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// Bytes from the operating system's cryptographic random source.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "RAND_bytes failed")
        return bytes
    }
}
