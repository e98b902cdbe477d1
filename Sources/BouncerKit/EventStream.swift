import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event of the service's event log: a moderated send, an edit, a flag, a ban ...
public struct BouncerEvent: Sendable, Hashable, Decodable, Identifiable {
    /// The event's id; ids increase in commit order.
    public var id: Int64
    /// The event's type, such as `message.bounced`, `message.flagged` or `user.banned`.
    public var type: String
    /// When the change committed.
    public var createdAt: String
    /// What changed: for `message.*` events the message as a moderator sees it.
    public var data: JSONValue

    /// For `message.*` events, the message.
    public var message: Message? {
        guard type.hasPrefix("message.") else { return nil }
        return try? data.decode(Message.self)
    }

    enum CodingKeys: String, CodingKey {
        case id, type, data
        case createdAt = "created_at"
    }
}

/// The service's live events (`GET /v1/events/stream`) as an `AsyncSequence`.
///
/// It reconnects by itself when the connection drops, after the delay the server asks for
/// (`retry:`) or the one given, and resumes after the last event it delivered with
/// `Last-Event-ID`, so no event is missed and none comes twice. It ends only with an error the
/// service answers a new connection with (a token refused, a role that may not read events),
/// or when the task iterating it is cancelled.
///
/// ```swift
/// for try await event in client.events(types: ["message.flagged"]) {
///     print(event.id, event.type, event.message?.text ?? "")
/// }
/// ```
public struct EventStream: AsyncSequence, Sendable {
    public typealias Element = BouncerEvent
    let client: BouncerClient
    let types: [String]?
    let after: Int64?
    let reconnectDelay: Duration?

    /// Delivers the events as they arrive.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var events: AsyncThrowingStream<BouncerEvent, any Error>.AsyncIterator

        /// The next event; it waits for one to commit.
        /// - Throws: ``BouncerError`` when the service refuses a connection.
        public mutating func next() async throws -> BouncerEvent? { try await events.next() }
    }

    /// Connects, and reads until the iterator is released or its task cancelled.
    public func makeAsyncIterator() -> AsyncIterator {
        let (events, continuation) = AsyncThrowingStream<BouncerEvent, any Error>.makeStream(bufferingPolicy: .unbounded)
        let reader = Task { [self] in
            do {
                try await follow(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return AsyncIterator(events: events.makeAsyncIterator())
    }

    /// Connects, reads, and connects again, for as long as the task is not cancelled.
    private func follow(_ continuation: AsyncThrowingStream<BouncerEvent, any Error>.Continuation) async throws {
        var lastEventID: String? = after.map(String.init)
        var delay = reconnectDelay ?? .seconds(2)
        while !Task.isCancelled {
            var query: [URLQueryItem] = []
            if let types { query.append(URLQueryItem(name: "types", value: types.joined(separator: ","))) }
            var request = try await client.request("GET", "/v1/events/stream", query: query)
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            // Held open for as long as events come; the server's keep-alive comments arrive
            // well within this.
            request.timeoutInterval = 120
            if let lastEventID { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            var parser = ServerSentEventParser(lastEventID: lastEventID)
            let connection = StreamingRequest(request, configuration: client.configuration)
            var status: HTTPURLResponse?
            var refusal = Data()
            do {
                for try await chunk in connection.chunks {
                    switch chunk {
                    case .response(let response):
                        status = response
                    case .data(let data) where status?.statusCode == 200:
                        for event in parser.feed(data) {
                            guard let json = event.data.data(using: .utf8),
                                  let decoded = try? JSONDecoder().decode(BouncerEvent.self, from: json) else { continue }
                            continuation.yield(decoded)
                            lastEventID = event.id ?? String(decoded.id)
                        }
                        if reconnectDelay == nil, let milliseconds = parser.retryMilliseconds { delay = .milliseconds(milliseconds) }
                    case .data(let data):
                        refusal.append(data)
                    }
                }
            } catch {
                // The connection dropped: connect again below.
            }
            connection.cancel()
            if let status, status.statusCode != 200 {
                let error = Problem(data: refusal, response: status).map(BouncerError.init)
                    ?? .unexpectedResponse(status: status.statusCode, body: String(decoding: refusal, as: UTF8.self))
                // A refusal that a new connection would get again ends the stream.
                if status.statusCode < 500 { throw error }
            }
            try await Task.sleep(for: delay)
        }
    }
}

/// One request whose body is read as it arrives, through a `URLSessionDataDelegate`
/// (swift-corelibs-foundation has no `URLSession.bytes(for:)`).
final class StreamingRequest: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Chunk: Sendable {
        case response(HTTPURLResponse)
        case data(Data)
    }

    let chunks: AsyncThrowingStream<Chunk, any Error>
    private let continuation: AsyncThrowingStream<Chunk, any Error>.Continuation
    // Set once in init, before any delegate call can come.
    private var session: URLSession?
    private var task: URLSessionDataTask?

    init(_ request: URLRequest, configuration: URLSessionConfiguration) {
        (chunks, continuation) = AsyncThrowingStream<Chunk, any Error>.makeStream(bufferingPolicy: .unbounded)
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        // The session holds its delegate until it is invalidated, in `cancel` or on completion.
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        let task = session.dataTask(with: request)
        self.session = session
        self.task = task
        continuation.onTermination = { [weak self] _ in self?.cancel() }
        task.resume()
    }

    func cancel() {
        task?.cancel()
        session?.invalidateAndCancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse { continuation.yield(.response(http)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        session.finishTasksAndInvalidate()
    }
}
