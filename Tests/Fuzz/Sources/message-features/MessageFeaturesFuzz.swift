// libFuzzer target: what rate rules read of a message (its mentions, links, fingerprint and
// sketch). Beyond "does not crash": every mention and link is a well-formed span of the original
// (offsets inside it, UTF-16 offsets that agree, its text the original's characters there),
// mentions are distinct, a sketch is whole or absent, and a text is as similar to itself as can be.

import BouncerModeration

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessageFeatures(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let scalars = Array(text.unicodeScalars)
    let features = MessageFeatures(text)
    for span in features.mentions + features.links {
        precondition(0 <= span.start && span.start < span.end && span.end <= scalars.count, "span \(span.start)..<\(span.end) of \(scalars.count)")
        var expected = String.UnicodeScalarView()
        expected.append(contentsOf: scalars[span.start..<span.end])
        precondition(span.text == String(expected), "span text \(span.text) is not the original's")
        let utf16Start = scalars[..<span.start].reduce(0) { $0 + $1.utf16.count }
        precondition(span.utf16Start == utf16Start && span.utf16End == utf16Start + span.text.utf16.count)
    }
    // By scalar: an `@` followed by a combining mark is one Character, which `hasPrefix("@")` is not.
    for mention in features.mentions { precondition(mention.text.unicodeScalars.first == "@") }
    precondition(Set(features.mentions.map { $0.text.lowercased() }).count == features.mentions.count, "mentions repeat")
    precondition(features.sketch.isEmpty || features.sketch.count == MessageFeatures.sketchSize)
    precondition(features.sketch.isEmpty == features.bands.isEmpty)
    if !features.sketch.isEmpty { precondition(MessageFeatures.similarity(features.sketch, features.sketch) == 1) }
    precondition(MessageFeatures(text).fingerprint == features.fingerprint, "the fingerprint is not stable")

    return 0
}
