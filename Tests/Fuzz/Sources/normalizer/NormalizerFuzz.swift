// libFuzzer target: the text normalizer every message goes through before matching. Beyond "does
// not crash": every normalized byte maps back inside the original, and any span of it maps to a
// well-formed range of the original's characters and UTF-16 units.

// The origin arrays and spans are internal to the module (scripts/fuzz.sh builds with -enable-testing).
@testable import BouncerModeration

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNormalizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let normalized = NormalizedText(text)
    let scalars = text.unicodeScalars.count
    let utf16 = text.utf16.count
    precondition(normalized.scalarCount == scalars)
    precondition(normalized.foldedOrigin.count == normalized.folded.count)
    precondition(normalized.foldedOrigin.allSatisfy { $0 >= 0 && Int($0) < scalars })
    let words = normalized.words.count
    precondition(normalized.wordsStart.count == words && normalized.wordsEnd.count == words && normalized.runs.count == words)
    for index in 0..<words {
        let start = Int(normalized.wordsStart[index]), end = Int(normalized.wordsEnd[index])
        precondition(start >= 0 && start <= end && end <= scalars, "word byte \(index) covers \(start)..<\(end) of \(scalars)")
        precondition(normalized.runs[index] >= 1)
    }
    if scalars > 0 {
        let start = size % scalars
        let end = start + (size / 2) % (scalars - start + 1)
        let span = normalized.span(scalars: start, end)
        precondition(span.start == start && span.end == end)
        precondition(0 <= span.utf16Start && span.utf16Start <= span.utf16End && span.utf16End <= utf16)
        precondition(span.text.unicodeScalars.count == end - start)
    }
    return 0
}
