// libFuzzer target: the HTTP/1.1 request parser. Beyond "does not crash", it checks that feeding
// the input all at once and one byte at a time gives the same requests and the same error: the
// parser is fed whatever sizes the network delivers.

import HTTPServer

private struct Outcome: Equatable {
    var requests: [String] = []
    var body: [UInt8] = []
    var error: String?
}

private func parse(_ bytes: UnsafeBufferPointer<UInt8>, pieceSize: Int) -> Outcome {
    var limits = ServerLimits()
    limits.maxBodyBytes = 4096
    limits.maxHeaderBytes = 2048
    limits.maxRequestLineBytes = 1024
    limits.maxHeaderCount = 20
    var parser = HTTPRequestParser(limits: limits)
    var outcome = Outcome()
    var offset = 0
    repeat {
        let end = min(bytes.count, offset + pieceSize)
        parser.feed(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end])))
        offset = end
        do {
            while let event = try parser.next() {
                switch event {
                case .head(let head):
                    let fields = head.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "|")
                    outcome.requests.append("\(head.method) \(head.target) \(head.version) keep-alive:\(head.keepAlive) \(fields)")
                case .body(let chunk):
                    precondition(!chunk.isEmpty, "an empty body event")
                    outcome.body += chunk
                case .end:
                    outcome.requests.append("end")
                default:
                    outcome.requests.append("\(event)")
                }
            }
        } catch {
            outcome.error = "\(error.status.code) \(error.code)"
            return outcome
        }
    } while offset < bytes.count
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let whole = parse(bytes, pieceSize: max(1, size))
    let trickled = parse(bytes, pieceSize: 1)
    precondition(whole == trickled, "fed whole: \(whole)\nfed byte by byte: \(trickled)")
    return 0
}
