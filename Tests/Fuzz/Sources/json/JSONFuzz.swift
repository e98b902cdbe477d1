// libFuzzer target: the strict JSON reader and the writer beside it (every request body, token and
// stored document goes through them). Beyond "does not crash": a document that parses is written
// back and must parse to the same value and be written the same again, byte for byte (numbers
// keep their text: past 2^53, with exponents, as negative zero), and decoding it into a Decodable
// type either succeeds or throws, whatever its shape.

import JSON

/// A request-body shape of the service's: optional fields of every kind, nested.
private struct Body: Codable {
    var text: String?
    var count: Int?
    var ratio: Double?
    var enabled: Bool?
    var channels: [String]?
    var nested: [String: [Int]]?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? StrictJSONParser.parse(bytes, maxDepth: 32) else { return 0 }
    var written: [UInt8] = []
    value.write(to: &written)
    guard let again = try? StrictJSONParser.parse(written, maxDepth: 32) else {
        preconditionFailure("written back, the document does not parse: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(again == value || value.containsNaN, "written back and parsed again, the value differs")
    var rewritten: [UInt8] = []
    again.write(to: &rewritten)
    precondition(rewritten == written, "written twice, the texts differ: \(String(decoding: written, as: UTF8.self))")
    precondition(value.numbersAreWrittenAsRead(in: written), "a number's text changed on the way")
    if let body = try? value.decode(Body.self) {
        let encoded = try? JSONText.encodedString(body)
        precondition(encoded != nil, "a decoded body encodes")
    }
    return 0
}

private extension JSONValue {
    /// Whether every number's text appears in `text` as it was read.
    func numbersAreWrittenAsRead(in text: [UInt8]) -> Bool {
        switch self {
        case .number(let number): text.firstRange(of: Array(number.text.utf8)) != nil
        case .array(let items): items.allSatisfy { $0.numbersAreWrittenAsRead(in: text) }
        case .object(let members): members.values.allSatisfy { $0.numbersAreWrittenAsRead(in: text) }
        default: true
        }
    }

    /// NaN is never parsed from JSON text; kept only so the equality check says why it would fail.
    var containsNaN: Bool {
        switch self {
        case .number(let number): number.double.isNaN
        case .array(let items): items.contains { $0.containsNaN }
        case .object(let members): members.values.contains { $0.containsNaN }
        default: false
        }
    }
}
