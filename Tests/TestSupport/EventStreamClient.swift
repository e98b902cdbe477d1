import Foundation

/// A client of a Server-Sent Events stream (`GET /v1/events/stream`), read as a browser's
/// EventSource reads it (the WHATWG HTML standard's event stream format): events are blocks of
/// `field: value` lines ended by a blank line; lines that start with `:` are comments.
public final class EventStreamClient {
    public struct Event: Equatable {
        public var id: String?
        public var type: String
        public var data: String

        /// `data` parsed as a JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any]
        }
    }

    public let client: RawHTTPClient
    public let response: RawResponse
    /// Comment lines seen so far (heartbeats).
    public private(set) var comments: [String] = []
    /// The id of the last event read: what a reconnecting client sends as `Last-Event-ID`.
    public private(set) var lastEventID: String?

    /// Opens the stream at `path` and reads its response head (which must be 200 to read on).
    public init(port: Int, path: String, headers: [String: String] = [:]) throws {
        client = try RawHTTPClient(port: port)
        var text = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try client.send(text + "\r\n")
        // The head only: the body goes on for as long as the stream lasts.
        response = try client.read("response head") { bytes -> (RawResponse, used: Int)? in
            guard let end = RawHTTPClient.find(Array("\r\n\r\n".utf8), in: bytes) else { return nil }
            return (try RawHTTPClient.parseHead(bytes[..<end]), end + 4)
        }
    }

    /// Bytes of the body read and not yet parsed: `pending[start...]`, searched for a block's end
    /// from `scanned` on (a stream may deliver megabytes at once; each byte is looked at once).
    private var pending: [UInt8] = []
    private var start = 0
    private var scanned = 0

    /// The next block (the text before a blank line), reading more as needed.
    private func nextBlock(timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = blockEnd() {
                let block = String(decoding: pending[start..<end], as: UTF8.self)
                start = end + 2
                scanned = start
                if start > 1 << 20 {
                    pending.removeFirst(start)
                    (start, scanned) = (0, 0)
                }
                return block
            }
            let remaining = deadline - .now
            guard remaining > .zero else { throw RawHTTPError.timedOut("event") }
            pending += try client.read(timeout: remaining, "event") { bytes in bytes.isEmpty ? nil : (bytes, bytes.count) }
        }
    }

    private func blockEnd() -> Int? {
        guard pending.count - scanned >= 2 else { return nil }
        let found = pending.withUnsafeBufferPointer { buffer -> Int? in
            var index = max(start, scanned)
            while index + 1 < buffer.count {
                if buffer[index] == 10 && buffer[index + 1] == 10 { return index }
                index += 1
            }
            return nil
        }
        if found == nil { scanned = max(start, pending.count - 1) }
        return found
    }

    /// The next event (comments are collected on the way), waiting up to `timeout`.
    public func next(timeout: Duration = .seconds(5)) throws -> Event {
        // One deadline for the event, however many comments (heartbeats) come before it.
        let deadline = ContinuousClock.now + timeout
        while true {
            let block = try nextBlock(timeout: deadline - .now)
            var event = Event(id: nil, type: "message", data: "")
            var dataLines: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                    continue
                }
                let (field, value) = Self.field(line)
                switch field {
                case "id": event.id = value
                case "event": event.type = value
                case "data": dataLines.append(value)
                default: break
                }
            }
            // A block of comments or `retry:` alone is no event.
            guard !dataLines.isEmpty else { continue }
            event.data = dataLines.joined(separator: "\n")
            if let id = event.id { lastEventID = id }
            return event
        }
    }

    /// The next `count` events.
    public func next(_ count: Int, timeout: Duration = .seconds(10)) throws -> [Event] {
        try (0..<count).map { _ in try next(timeout: timeout) }
    }

    /// Waits up to `timeout` for a comment line; true if one came.
    public func waitForComment(containing text: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if comments.contains(where: { $0.contains(text) }) { return true }
            _ = try? next(timeout: .milliseconds(200))
        }
        return comments.contains(where: { $0.contains(text) })
    }

    /// Reads on until the server closes the stream, up to `timeout`: true if it closed.
    public func waitForServerClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            do {
                _ = try next(timeout: min(.seconds(1), deadline - .now))
            } catch RawHTTPError.timedOut {
                continue
            } catch {
                return true
            }
        }
        return false
    }

    public func close() { client.close() }

    private static func field(_ line: Substring) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (String(line), "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}
