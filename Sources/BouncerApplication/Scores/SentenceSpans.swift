/// A text's sentences, for scores by span (Perspective's `spanScores`): each ends after a run of
/// `.`, `!`, `?` or `…` followed by white space, or at a line break; white space between them
/// belongs to no sentence. Offsets are in UTF-16 code units, as JavaScript and Perspective count.
package enum SentenceSpans {
    package struct Span: Sendable, Equatable {
        package var text: String
        package var begin: Int
        package var end: Int
    }

    /// Most spans a text is cut into; the last takes the rest.
    package static let maxSpans = 200

    package static func spans(_ text: String) -> [Span] {
        var spans: [Span] = []
        var current = String.UnicodeScalarView()
        var begin = 0, offset = 0
        var endingPunctuation = false
        func close(at end: Int) {
            var scalars = current
            var trimmedEnd = end
            while let last = scalars.last, last.properties.isWhitespace {
                scalars.removeLast()
                trimmedEnd -= last.utf16.count
            }
            if !scalars.isEmpty { spans.append(Span(text: String(scalars), begin: begin, end: trimmedEnd)) }
            current.removeAll()
        }
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace
            if current.isEmpty {
                if isSpace { offset += scalar.utf16.count; continue }
                begin = offset
            }
            let breaksHere = spans.count < maxSpans - 1
                && (scalar == "\n" || scalar == "\r" || scalar == "\u{2029}" || (isSpace && endingPunctuation))
            if breaksHere {
                close(at: offset)
                endingPunctuation = false
                offset += scalar.utf16.count
                continue
            }
            current.append(scalar)
            offset += scalar.utf16.count
            endingPunctuation = scalar == "." || scalar == "!" || scalar == "?" || scalar == "…" || (endingPunctuation && (scalar == "\"" || scalar == ")"))
        }
        close(at: offset)
        return spans
    }
}
