/// The language ranges of an `Accept-Language` header (RFC 9110 section 12.5.4), best first.
public enum AcceptLanguage {
    /// Ranges considered at most; a longer header is read only this far.
    public static let maxRanges = 32

    public struct Range: Equatable, Sendable {
        /// A canonical tag, or `*`.
        public var tag: String
        public var quality: Double
    }

    /// Ranges with q > 0 by descending quality (ties keep header order); malformed ones skipped.
    public static func parse(_ header: String) -> [Range] {
        var ranges: [(range: Range, position: Int)] = []
        for (position, item) in header.split(separator: ",").prefix(maxRanges).enumerated() {
            let pieces = item.split(separator: ";")
            guard let rawTag = pieces.first?.trimmingWhitespace(), !rawTag.isEmpty else { continue }
            var quality = 1.0
            var valid = true
            for parameter in pieces.dropFirst() {
                let pair = parameter.trimmingWhitespace().split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1]), (0...1).contains(value) else {
                    valid = false
                    break
                }
                quality = value
            }
            guard valid, quality > 0 else { continue }
            let tag = rawTag == "*" ? "*" : LocaleTag.canonical(rawTag)
            guard let tag else { continue }
            ranges.append((Range(tag: tag, quality: quality), position))
        }
        return ranges.sorted { $0.range.quality != $1.range.quality ? $0.range.quality > $1.range.quality : $0.position < $1.position }
            .map(\.range)
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
