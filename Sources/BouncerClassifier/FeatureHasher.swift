/// Turns a text's normalized words (`NormalizedText.words`: lower case, leetspeak and look-alike
/// letters read, separators joined, stretched letters written once, every other run of characters
/// one space) into hashed, signed features: its words, its pairs of adjacent words, and the byte
/// runs of 3, 4 and 5 across the whole text (which carry a word's parts through misspellings and
/// joined words, and work for any script).
///
/// Each feature is a bucket of the model's weights and a sign: the sign halves what two features
/// sharing a bucket do to each other. Nothing is allocated: a text is read once, in place.
public struct FeatureHasher: Sendable, Equatable {
    /// The model has `1 << bits` weights for each attribute.
    public let bits: Int

    public static let standardBits = 18

    public init(bits: Int = FeatureHasher.standardBits) {
        precondition((10...24).contains(bits), "the weights' count is 2^10 to 2^24")
        self.bits = bits
    }

    public var buckets: Int { 1 << bits }

    /// Bytes of a text read at most: a long text's first part decides its features (and bounds
    /// the work one text costs).
    public static let maxBytes = 8192

    // FNV-1a's parameters, and a separate start for each kind of feature, so the word "cat" and
    // the byte run "cat" are different features.
    @usableFromInline static let prime: UInt64 = 0x0000_0100_0000_01B3
    @usableFromInline static let runSeed: UInt64 = 0xCBF2_9CE4_8422_2325
    @usableFromInline static let wordSeed: UInt64 = 0x84222325CBF29CE4
    @usableFromInline static let pairSeed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// What each feature's weight is multiplied by in a text of `count` features: one over the
    /// square root of the count, so a long text and a short one are on one scale, with a few
    /// features' worth added, so that the one or two words of a very short text ("f", "you?")
    /// do not speak as loudly as a whole sentence.
    @inline(__always)
    public static func scale(count: Int) -> Float { 1 / (Float(count) + lengthSmoothing).squareRoot() }

    public static let lengthSmoothing: Float = 24

    /// A feature: the bucket in the low 31 bits, the sign in the top one (set: negative).
    public typealias Feature = UInt32

    /// Spreads an FNV hash's bits (FNV's high bits depend on every byte, its low ones less so),
    /// then takes the bucket from the high bits and the sign from the lowest.
    @inline(__always) @usableFromInline
    func feature(_ hash: UInt64) -> Feature {
        var mixed = hash ^ (hash >> 29)
        mixed &*= 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 32
        return Feature(truncatingIfNeeded: mixed >> UInt64(64 - bits)) | (Feature(truncatingIfNeeded: mixed & 1) << 31)
    }

    /// Calls `body` with every feature of `words`, in text order; returns how many there were.
    @inlinable @discardableResult
    public func forEachFeature(_ words: UnsafeBufferPointer<UInt8>, _ body: (Feature) -> Void) -> Int {
        let count = min(words.count, Self.maxBytes)
        guard count > 0 else { return 0 }
        var emitted = 0
        // Byte runs of 3 to 5, over the text with a space before and after (so a word's first and
        // last letters make runs of their own: " fu", "ck ").
        let padded = count + 2
        @inline(__always) func byte(_ index: Int) -> UInt8 { index == 0 || index == padded - 1 ? 0x20 : words[index - 1] }
        var start = 0
        while start + 3 <= padded {
            var hash = Self.runSeed
            hash = (hash ^ UInt64(byte(start))) &* Self.prime
            hash = (hash ^ UInt64(byte(start + 1))) &* Self.prime
            hash = (hash ^ UInt64(byte(start + 2))) &* Self.prime
            body(feature(hash)); emitted += 1
            if start + 4 <= padded {
                hash = (hash ^ UInt64(byte(start + 3))) &* Self.prime
                body(feature(hash)); emitted += 1
                if start + 5 <= padded {
                    hash = (hash ^ UInt64(byte(start + 4))) &* Self.prime
                    body(feature(hash)); emitted += 1
                }
            }
            start += 1
        }
        // Words, and each word with the one before it.
        var previous: UInt64 = 0
        var index = 0
        while index < count {
            while index < count && words[index] == 0x20 { index += 1 }
            guard index < count else { break }
            var hash = Self.wordSeed
            while index < count && words[index] != 0x20 {
                hash = (hash ^ UInt64(words[index])) &* Self.prime
                index += 1
            }
            body(feature(hash)); emitted += 1
            if previous != 0 {
                body(feature((previous &* Self.pairSeed) ^ hash)); emitted += 1
            }
            previous = hash
        }
        return emitted
    }
}
