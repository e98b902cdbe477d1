// libFuzzer target: the `.strings` parser (admin uploads and override files). Beyond "does not
// crash": a file that parses is written back in the format and must parse to the same pairs, and an
// error points inside the input.

import BouncerLocalization

private func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStringsFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let pairs = try StringsFile.parse(bytes)
        let written = pairs.map { "\(quoted($0.key)) = \(quoted($0.value));" }.joined(separator: "\n")
        let again = try StringsFile.parse(Array(written.utf8))
        precondition(again.map(\.key) == pairs.map(\.key) && again.map(\.value) == pairs.map(\.value),
                     "written back and parsed again, the pairs differ: \(pairs) vs \(again)")
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        precondition(error.line >= 1 && error.line <= lines + 1, "error line \(error.line) outside 1...\(lines + 1)")
        precondition(error.column >= 1, "error column \(error.column)")
    }
    return 0
}
