import Foundation

/// One event of the Server-Sent Events format (the WHATWG HTML standard's `text/event-stream`).
struct ServerSentEvent: Sendable, Hashable {
    /// The last `id:` seen on the stream when this event was dispatched.
    var id: String?
    /// `event:`, or `message` when none was given.
    var type: String
    /// The `data:` lines, joined by line feeds.
    var data: String
}

/// Reads `text/event-stream` bytes as they come, in pieces of any size: lines end in CR LF, LF or
/// CR; `:` lines are comments; a blank line dispatches the event gathered, if it has data.
struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    /// A CR ended the last line: an LF right after it belongs to that line ending.
    private var afterCR = false
    private var type = ""
    private var data: [String] = []
    private var hasData = false
    /// The stream's last event id, kept across events as the standard says.
    private(set) var lastEventID: String?
    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    private(set) var retryMilliseconds: Int?

    init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
    }

    /// Reads `bytes`; returns the events they complete.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A:
                if let event = endLine() { events.append(event) }
            case 0x0D:
                afterCR = true
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: String, value: String
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = String(decoding: line[..<colon], as: UTF8.self)
            var start = colon + 1
            if start < line.endIndex, line[start] == UInt8(ascii: " ") { start += 1 }
            value = String(decoding: line[start...], as: UTF8.self)
        } else {
            field = String(decoding: line, as: UTF8.self)
            value = ""
        }
        switch field {
        case "event": type = value
        case "data":
            data.append(value)
            hasData = true
        case "id" where !value.contains("\0"): lastEventID = value
        case "retry": if let milliseconds = Int(value), milliseconds >= 0 { retryMilliseconds = milliseconds }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data.removeAll()
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(id: lastEventID, type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"))
    }
}
