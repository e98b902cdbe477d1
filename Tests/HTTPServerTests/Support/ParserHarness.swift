@testable import HTTPServer

/// Parser events with consecutive body events merged: how bytes are split into `.body` events
/// depends on how they arrived, and nothing else may.
enum NormalizedEvent: Equatable, CustomStringConvertible {
    case head(RequestHead)
    case body([UInt8])
    case end

    var description: String {
        switch self {
        case .head(let head): "head(\(head.method) \(head.target) \(head.version))"
        case .body(let bytes): "body(\(bytes.count) bytes: \(String(decoding: bytes.prefix(40), as: UTF8.self)))"
        case .end: "end"
        }
    }
}

/// What parsing some bytes came to: the normalized events, then the error that stopped the
/// parser if one did.
struct ParseOutcome: Equatable {
    var events: [NormalizedEvent] = []
    var error: HTTPParseError?

    mutating func append(_ event: HTTPParserEvent) {
        switch event {
        case .head(let head): events.append(.head(head))
        case .end: events.append(.end)
        case .body(let bytes):
            if case .body(let earlier)? = events.last {
                events[events.count - 1] = .body(earlier + bytes)
            } else {
                events.append(.body(bytes))
            }
        }
    }

    /// The heads, in order.
    var heads: [RequestHead] {
        events.compactMap { if case .head(let head) = $0 { head } else { nil } }
    }
}

/// Feeds `pieces` one after another, pulling every event after each, and stops at the first error.
func parse(_ pieces: [[UInt8]], limits: ServerLimits = ServerLimits()) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    for piece in pieces {
        parser.feed(piece)
        do {
            while let event = try parser.next() { outcome.append(event) }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

func parse(_ text: String, limits: ServerLimits = ServerLimits()) -> ParseOutcome {
    parse([Array(text.utf8)], limits: limits)
}

func parseByteByByte(_ bytes: [UInt8], limits: ServerLimits = ServerLimits()) -> ParseOutcome {
    parse(bytes.map { [$0] }, limits: limits)
}

/// The error feeding `bytes` all at once ends in, or nil when it parses.
func parseError(_ bytes: [UInt8], limits: ServerLimits = ServerLimits()) -> HTTPParseError? {
    parse([bytes], limits: limits).error
}

func parseError(_ text: String, limits: ServerLimits = ServerLimits()) -> HTTPParseError? {
    parseError(Array(text.utf8), limits: limits)
}

/// The single head `text` parses to, or nil if it does not parse to exactly one.
func parseHead(_ text: String, limits: ServerLimits = ServerLimits()) -> RequestHead? {
    let outcome = parse(text, limits: limits)
    guard outcome.error == nil, outcome.heads.count == 1 else { return nil }
    return outcome.heads[0]
}
