// libFuzzer target: what the harm scores read from outside, the labelled files of `bouncer train`
// (CSV or JSON lines) and model files (`--harm-model`, a version's stored file). Beyond "does not
// crash": an error names a line inside the input, every text read has a valid attribute, and a
// model file that reads is written back to the same bytes and scores a text with probabilities.

import BouncerClassifier
import BouncerDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHarmData(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let texts = try LabelledData.read(bytes)
        precondition(texts.allSatisfy { RuleParams.isAttributeName($0.attribute) && $0.text.utf8.count <= LabelledData.maxTextBytes },
                     "a text read with an attribute or a length a file may not give")
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        precondition(error.line >= 1 && error.line <= lines, "error line \(error.line) outside 1...\(lines)")
    }
    if let model = try? ModelFile.decode(bytes) {
        let again = try? ModelFile.decode(ModelFile.encode(model))
        precondition(again?.attributes == model.attributes, "a model written back reads with other attributes")
        for score in model.scores(String(decoding: bytes.prefix(300), as: UTF8.self)) {
            precondition(score >= 0 && score <= 1, "a score outside 0...1: \(score)")
        }
    }
    return 0
}
