import BouncerDomain

/// What rate rules look at in a message: its mentions, its links, and the fingerprint and sketch
/// that find the same or nearly the same message among a sender's earlier ones.
public struct MessageFeatures: Sendable {
    /// Distinct `@name` mentions (compared without case), each where it first stands.
    public let mentions: [MatchSpan]
    /// Every link, in text order.
    public let links: [MatchSpan]
    /// The same for two texts that normalize alike (case, look-alikes, leetspeak, separators).
    public let fingerprint: UInt64
    /// MinHash (one-permutation) of the normalized text's four-character shingles: the share of equal slots of two
    /// sketches estimates how much of their shingles two texts share (Jaccard similarity). Four
    /// characters, not three: chat in one language shares most three-character runs (" th",
    /// "the"), and unrelated messages would look alike.
    public let sketch: [UInt32]
    /// Locality-sensitive keys: each hashes one band of the sketch, so near-duplicates share at
    /// least one key with high likelihood, and unrelated texts seldom do. Empty for texts too
    /// short to be told apart by more than their fingerprint.
    public let bands: [UInt64]

    /// 12 bands of 4 slots: two texts share a band with likelihood 1 - (1 - J^4)^12, which is over
    /// 0.99 for near-duplicates (J 0.75) and under 0.03 for texts that share a fifth of their
    /// shingles; a shared band is then confirmed by the whole sketch.
    public static let sketchSize = 48
    /// Slots a band (its key is made of four).
    static let bandRows = 4
    /// Normalized texts shorter than this are only ever identical to others ("ok", "lol", "gg").
    static let shortestSimilar = 8
    /// Two sketches this alike (or more) belong to near-duplicates.
    public static let similarityThreshold = 0.5

    /// The parts of the features a caller may need: only those asked for are worked out.
    public struct Parts: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let mentions = Parts(rawValue: 1)
        public static let links = Parts(rawValue: 2)
        /// The fingerprint, and the sketch and its bands.
        public static let likeness = Parts(rawValue: 4)
        public static let all: Parts = [.mentions, .links, .likeness]
    }

    public init(_ text: String, parts: Parts = .all) {
        self.init(text, normalizedWords: nil, parts: parts)
    }

    /// `normalizedWords`: the `words` of the text's `NormalizedText` when the caller has it
    /// already (else it is made here, if the likeness is asked for). Only they are passed, not
    /// the whole: a copy of that would retain each of its arrays.
    public init(_ text: String, normalizedWords: [UInt8]?, parts: Parts = .all) {
        // Most messages have no `@` and no `.` or `:`: they are told so by a look at their bytes,
        // before any character is decoded.
        var mayMention = false, mayLink = false
        if !parts.isDisjoint(with: [.mentions, .links]) {
            var text = text
            text.withUTF8 { bytes in
                for byte in bytes {
                    if byte == UInt8(ascii: "@") { mayMention = true } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":") { mayLink = true }
                }
            }
            mayMention = mayMention && parts.contains(.mentions)
            mayLink = mayLink && parts.contains(.links)
        }
        let reader = mayMention || mayLink ? SpanReader(text) : nil
        mentions = mayMention ? Self.mentions(reader!) : []
        links = mayLink ? Self.links(reader!) : []
        guard parts.contains(.likeness) else {
            fingerprint = 0
            sketch = []
            bands = []
            return
        }
        let normalized = normalizedWords ?? NormalizedText(text).words
        let basis = normalized.isEmpty ? Array(text.lowercased().utf8) : normalized
        fingerprint = Self.hash(basis[...], seed: 0x9E37_79B9_7F4A_7C15)
        guard basis.count >= Self.shortestSimilar else {
            sketch = []
            bands = []
            return
        }
        // One permutation: each shingle is hashed once, and its hash goes to one slot (by some of
        // its bits), which keeps the least it is given; an empty slot then borrows from the next
        // slot along that is not. A shingle costs one hash, not one a slot, and no branch: about
        // half of them lower their slot, which no branch predictor could guess.
        var sketch = [UInt32](repeating: .max, count: Self.sketchSize)
        basis.withUnsafeBufferPointer { bytes in
            sketch.withUnsafeMutableBufferPointer { slots in
                // The four bytes of the shingle that ends at `end`, the newest in the high byte.
                var window = UInt64(bytes[0]) << 8 | UInt64(bytes[1]) << 16 | UInt64(bytes[2]) << 24
                for end in 3..<bytes.count {
                    window = window >> 8 | UInt64(bytes[end]) << 24
                    let shingle = Self.mix(window)
                    // The high half, scaled into 0..<48 (a multiply, not a division).
                    let slot = Int(((shingle >> 32) &* UInt64(Self.sketchSize)) >> 32)
                    slots[slot] = min(slots[slot], UInt32(truncatingIfNeeded: shingle))
                }
            }
        }
        // A slot still at the most a value can be was given nothing (or, once in four billion
        // shingles, that very value: it borrows all the same, as both texts' slots would).
        var filled: UInt64 = 0  // a bit a slot (48 of them)
        for slot in 0..<Self.sketchSize where sketch[slot] != .max { filled |= 1 << slot }
        for slot in 0..<Self.sketchSize where filled != 0 && filled & (1 << slot) == 0 {
            var from = (slot + 1) % Self.sketchSize
            while filled & (1 << from) == 0 { from = (from + 1) % Self.sketchSize }
            // Told apart by the distance borrowed from, as two texts empty in different slots are.
            sketch[slot] = sketch[from] &+ UInt32((from - slot + Self.sketchSize) % Self.sketchSize)
        }
        self.sketch = sketch
        // A band's four slots, two to a word, hashed with where the band starts: two mixes a
        // band, not one a slot, and the bands' short chains run side by side.
        bands = stride(from: 0, to: Self.sketchSize, by: Self.bandRows).map { start in
            let first = UInt64(sketch[start]) | UInt64(sketch[start + 1]) << 32
            let second = UInt64(sketch[start + 2]) | UInt64(sketch[start + 3]) << 32
            return Self.mix(Self.mix(first ^ (UInt64(start) &* 0x51_7CC1_B727_220B)) ^ second)
        }
    }

    /// The share of equal slots of two sketches: about their texts' Jaccard similarity.
    public static func similarity(_ a: [UInt32], _ b: [UInt32]) -> Double {
        SketchSimilarity.of(a, b)
    }

    // MARK: - Hashing

    /// SplitMix64's finalizer: every bit of the input moves about half the output's.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Eight bytes a step (a multiply and a rotation, so every input bit reaches every state bit
    /// in time), the last few with the length's low byte in one more, then `mix`.
    static func hash(_ bytes: ArraySlice<UInt8>, seed: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        func step(_ word: UInt64) {
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash = hash << 31 | hash >> 33
        }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                step(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            var last = UInt64(raw.count) << 56
            for index in offset..<raw.count { last |= UInt64(raw[index]) << (8 * (index - offset)) }
            step(last)
        }
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
            while start < scalars.count, isSpace(scalars[start]) { start += 1 }
            var end = start
            var dotted = false
            while end < scalars.count, !isSpace(scalars[end]) {
                if scalars[end] == "." || scalars[end] == ":" { dotted = true }
                end += 1
            }
            // A word without a dot or colon is no link.
            guard dotted else {
                start = end
                continue
            }
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

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 128 ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }

    private static let leadingPunctuation: Set<Unicode.Scalar> = ["(", "[", "{", "<", "\"", "'", "«", "“", "‘"]
    private static let trailingPunctuation: Set<Unicode.Scalar> = [")", "]", "}", ">", "\"", "'", "»", "”", "’", ".", ",", ";", ":", "!", "?"]

    private static func isLink(_ word: String) -> Bool {
        for scheme in ["http://", "https://"] where word.hasPrefix(scheme) { return word.count > scheme.count }
        if word.hasPrefix("www.") { return word.count > 4 }
        guard !word.utf8.contains(UInt8(ascii: "@")) else { return false }
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
