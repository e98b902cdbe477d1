/// What rate rules look at in a message: its mentions, its links, and the fingerprint and sketch
/// that find the same or nearly the same message among a sender's earlier ones.
public struct MessageFeatures: Sendable {
    /// Distinct `@name` mentions (compared without case), each where it first stands.
    public let mentions: [MatchSpan]
    /// Every link, in text order.
    public let links: [MatchSpan]
    /// The same for two texts that normalize alike (case, look-alikes, leetspeak, separators).
    public let fingerprint: UInt64
    /// MinHash of the normalized text's three-character shingles: the share of equal slots of two
    /// sketches estimates how much of their shingles two texts share (Jaccard similarity).
    public let sketch: [UInt32]
    /// Locality-sensitive keys: each hashes one band of the sketch, so near-duplicates share at
    /// least one key with high likelihood, and unrelated texts seldom do. Empty for texts too
    /// short to be told apart by more than their fingerprint.
    public let bands: [UInt64]

    public static let sketchSize = 36
    static let bandRows = 3
    /// Normalized texts shorter than this are only ever identical to others ("ok", "lol", "gg").
    static let shortestSimilar = 8
    /// Two sketches this alike (or more) belong to near-duplicates.
    public static let similarityThreshold = 0.5

    public init(_ text: String) {
        let reader = SpanReader(text)
        mentions = Self.mentions(reader)
        links = Self.links(reader)
        let normalized = NormalizedText(text).words
        let basis = normalized.isEmpty ? Array(text.lowercased().utf8) : normalized
        fingerprint = Self.hash(basis[...], seed: 0x9E37_79B9_7F4A_7C15)
        guard basis.count >= Self.shortestSimilar else {
            sketch = []
            bands = []
            return
        }
        var shingles = Set<UInt64>()
        for start in 0...(basis.count - 3) { shingles.insert(Self.hash(basis[start..<start + 3], seed: 0)) }
        var sketch = [UInt32](repeating: .max, count: Self.sketchSize)
        for shingle in shingles {
            for slot in 0..<Self.sketchSize {
                let value = UInt32(truncatingIfNeeded: Self.mix(shingle ^ Self.seeds[slot]) >> 32)
                if value < sketch[slot] { sketch[slot] = value }
            }
        }
        self.sketch = sketch
        bands = stride(from: 0, to: Self.sketchSize, by: Self.bandRows).map { start in
            var key = Self.mix(UInt64(start) &+ 0x51_7CC1_B727_220A)
            for slot in start..<start + Self.bandRows { key = Self.mix(key ^ UInt64(sketch[slot])) }
            return key
        }
    }

    /// The share of equal slots of two sketches: about their texts' Jaccard similarity.
    public static func similarity(_ a: [UInt32], _ b: [UInt32]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        return Double(zip(a, b).filter { $0 == $1 }.count) / Double(a.count)
    }

    // MARK: - Hashing

    /// Fixed seeds, so sketches made by any instance, at any time, compare.
    private static let seeds: [UInt64] = (0..<UInt64(sketchSize)).map { mix($0 &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D) }

    /// SplitMix64's finalizer: every bit of the input moves about half the output's.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func hash(_ bytes: ArraySlice<UInt8>, seed: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return mix(hash)
    }

    // MARK: - Mentions

    /// `@` then a name of letters, digits, `_`, `.` or `-`, not inside a word (so an email
    /// address is no mention). Distinct without case; a trailing dot is punctuation.
    private static func mentions(_ reader: SpanReader) -> [MatchSpan] {
        let scalars = reader.scalars
        var seen = Set<String>()
        var found: [MatchSpan] = []
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "@", index == 0 || !isNameScalar(scalars[index - 1]) else { continue }
            var end = index + 1
            while end < scalars.count, isNameScalar(scalars[end]) || scalars[end] == "." || scalars[end] == "-" { end += 1 }
            while end > index + 1, scalars[end - 1] == "." || scalars[end - 1] == "-" { end -= 1 }
            guard end > index + 1 else { continue }
            let span = reader.span(index, end)
            if seen.insert(span.text.lowercased()).inserted { found.append(span) }
            index = end - 1
        }
        return found
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    // MARK: - Links

    /// Words that are links: with a scheme (`https://…`), starting `www.`, or a host name whose
    /// last label is a common top-level domain (`example.com/path`). Punctuation around a word
    /// is not part of it.
    private static func links(_ reader: SpanReader) -> [MatchSpan] {
        let scalars = reader.scalars
        var found: [MatchSpan] = []
        var start = 0
        while start < scalars.count {
            while start < scalars.count, scalars[start].properties.isWhitespace { start += 1 }
            var end = start
            while end < scalars.count, !scalars[end].properties.isWhitespace { end += 1 }
            var first = start, last = end
            while first < last, leadingPunctuation.contains(scalars[first]) { first += 1 }
            while last > first, trailingPunctuation.contains(scalars[last - 1]) { last -= 1 }
            if last > first, isLink(String(String.UnicodeScalarView(scalars[first..<last])).lowercased()) {
                found.append(reader.span(first, last))
            }
            start = end
        }
        return found
    }

    private static let leadingPunctuation: Set<Unicode.Scalar> = ["(", "[", "{", "<", "\"", "'", "«", "“", "‘"]
    private static let trailingPunctuation: Set<Unicode.Scalar> = [")", "]", "}", ">", "\"", "'", "»", "”", "’", ".", ",", ";", ":", "!", "?"]

    private static func isLink(_ word: String) -> Bool {
        for scheme in ["http://", "https://"] where word.hasPrefix(scheme) { return word.count > scheme.count }
        if word.hasPrefix("www.") { return word.count > 4 }
        guard !word.contains("@") else { return false }
        let host = word.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" }
        }) else { return false }
        let tld = String(labels[labels.count - 1].split(separator: ":")[0])
        return commonTopLevelDomains.contains(tld)
    }

    /// Top-level domains common in links people paste, and in spam: enough to see `site.com` as
    /// a link without seeing `e.g` or `file.txt` as one.
    private static let commonTopLevelDomains: Set<String> = [
        "com", "net", "org", "io", "co", "info", "biz", "me", "ly", "gg", "tv", "app", "dev", "xyz", "top", "site", "online",
        "shop", "store", "club", "live", "link", "click", "ru", "cn", "de", "uk", "fr", "nl", "br", "in", "jp", "it", "es", "pl",
        "us", "ca", "au", "be", "ch", "se", "no", "fi", "dk", "at", "cz", "ua", "tk", "ml", "ga", "cf", "gq", "cc", "ws", "to",
        "gl", "gd", "vip", "win", "bid", "loan", "work", "fun", "space", "website", "tech", "pro", "life", "world", "today",
    ]
}
