import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Gives the client the user's token for each request.
///
/// Chat backends mint these tokens (HS256 JWTs with `user_id` and `role`); an app typically
/// fetches one from its own backend and refreshes it before it expires.
public protocol TokenProvider: Sendable {
    /// The token to send as `Authorization: Bearer`.
    func token() async throws -> String
}

/// A token provider with one token that does not change.
public struct StaticToken: TokenProvider {
    /// The token.
    public var value: String

    /// A provider that always answers `value`.
    public init(_ value: String) { self.value = value }

    /// The token given at creation.
    public func token() async throws -> String { value }
}

/// A token provider that asks a closure each time.
public struct TokenClosure: TokenProvider {
    private let provide: @Sendable () async throws -> String

    /// A provider that calls `provide` for each request.
    public init(_ provide: @escaping @Sendable () async throws -> String) { self.provide = provide }

    /// What the closure answers now.
    public func token() async throws -> String { try await provide() }
}

/// When a send is tried again.
///
/// Only a send is retried, and only because it carries a client message id: the service
/// answers a send it already stored with that message (200), so trying again after an answer
/// was lost never sends a message twice. Nothing else is retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Tries at most, the first included.
    public var maxAttempts: Int
    /// The wait after a connection failure, doubled on each further try.
    public var initialDelay: Duration
    /// The longest `Retry-After` of a 503 that is waited for; a longer one is given up on.
    public var maxRetryAfter: Duration

    /// A policy.
    public init(maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(200), maxRetryAfter: Duration = .seconds(10)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// Three tries, 200 ms apart at first, a `Retry-After` of up to 10 s waited for.
    public static let `default` = RetryPolicy()
    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)
}

/// A client of the Bouncer API, for one user.
///
/// ```swift
/// let client = BouncerClient(baseURL: URL(string: "https://bouncer.example.com")!,
///                            tokenProvider: StaticToken(token), locale: "de")
/// let message = try await client.send("Hallo zusammen", to: "messaging:general")
/// if let alert = message.alert {
///     // "Bist du sicher?" with Trotzdem senden / Nachricht bearbeiten / Nachricht löschen
/// }
/// ```
///
/// Every text the service sends (alerts, notices, action titles, problem titles) comes in
/// ``locale``. The client is `Sendable`: share one across tasks.
public final class BouncerClient: Sendable {
    /// The service's base URL, such as `https://bouncer.example.com` (paths start with `/v1`).
    public let baseURL: URL
    /// Where tokens come from.
    public let tokenProvider: any TokenProvider
    /// The language the service's texts come in (a BCP 47 tag such as `de` or `pt-BR`), sent as
    /// `Accept-Language`.
    public let locale: String
    /// When sends are tried again.
    public let retryPolicy: RetryPolicy
    let session: URLSession
    let configuration: URLSessionConfiguration

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: the service's base URL.
    ///   - tokenProvider: the user's token.
    ///   - locale: the language of the texts, `Locale.preferredLanguages.first` by default.
    ///   - retryPolicy: when sends are tried again.
    ///   - configuration: the URL session's configuration (timeouts, proxies).
    public init(baseURL: URL, tokenProvider: any TokenProvider, locale: String = Locale.preferredLanguages.first ?? "en",
                retryPolicy: RetryPolicy = .default, configuration: URLSessionConfiguration = .default) {
        self.baseURL = baseURL
        self.tokenProvider = tokenProvider
        self.locale = locale
        self.retryPolicy = retryPolicy
        self.configuration = configuration
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    // MARK: - Messages

    /// Sends `text` to `channel`.
    ///
    /// The message carries `id`, a client message id (a new one unless given), so a send whose
    /// answer was lost is tried again safely (see ``RetryPolicy``): the service stores it once.
    /// Check the answer's ``Message/state``: a bounced message comes back with its
    /// ``Message/alert`` for its author.
    ///
    /// - Parameters:
    ///   - text: 1 to `max_message_length` characters, not blank.
    ///   - channel: the channel's id, such as `messaging:general`.
    ///   - id: the client message id, 1-100 characters of `A-Z a-z 0-9 _ -`.
    ///   - parentID: the message this one replies to.
    ///   - custom: the app's own data, kept with the message.
    /// - Returns: the message as stored.
    /// - Throws: ``BouncerError``, such as ``BouncerError/userBanned(_:)`` or
    ///   ``BouncerError/idConflict(_:)``.
    @discardableResult
    public func send(_ text: String, to channel: String, id: String = BouncerClient.makeMessageID(), parentID: String? = nil,
                     custom: [String: JSONValue]? = nil) async throws(BouncerError) -> Message {
        struct Body: Encodable {
            var id: String
            var text: String
            var parent_id: String?
            var custom: [String: JSONValue]?
        }
        let body = Body(id: id, text: text, parent_id: parentID, custom: custom)
        return try await call("POST", "/v1/channels/\(Self.segment(channel))/messages", body: body, retrying: true)
    }

    /// A new client message id: 32 hexadecimal digits, unique for all practical purposes.
    public static func makeMessageID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The message `id` as the caller may see it.
    /// - Throws: ``BouncerError/messageNotFound(_:)`` when there is none the caller may see.
    public func message(_ id: String) async throws(BouncerError) -> Message {
        try await call("GET", "/v1/messages/\(Self.segment(id))")
    }

    /// One page of `channel`: the newest page first (no cursor), then older ones; each page's
    /// messages in chronological order.
    ///
    /// - Parameters:
    ///   - limit: messages a page, 1-200.
    ///   - cursor: the ``MessagePage/nextCursor`` of the page before.
    public func messages(in channel: String, limit: Int = 50, cursor: String? = nil) async throws(BouncerError) -> MessagePage {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try await call("GET", "/v1/channels/\(Self.segment(channel))/messages", query: query)
    }

    /// Every page of `channel`, newest first, read as the sequence is iterated.
    public func pages(of channel: String, limit: Int = 50) -> ChannelPages {
        ChannelPages(client: self, channel: channel, limit: limit)
    }

    /// Send Anyway: the alert's `resend` action on a bounced message.
    ///
    /// What it does depends on the rule that bounced the message: `bounce_flag` delivers it and
    /// flags it for moderators, `bounce_remove` removes it, a plain `bounce` leaves it bounced
    /// (and its alert offers no `resend`).
    /// - Throws: ``BouncerError/notBounced(_:)`` when the message is not bounced.
    @discardableResult
    public func sendAnyway(_ id: String) async throws(BouncerError) -> Message {
        try await call("POST", "/v1/messages/\(Self.segment(id))/resend")
    }

    /// Edits the caller's message `id` to `text`: the way out of a bounce, moderated again.
    /// - Throws: ``BouncerError/editRefused(_:)`` when the new text of a delivered message would
    ///   be bounced or removed (the message stays as it was; the problem carries the alert).
    @discardableResult
    public func edit(_ id: String, text: String) async throws(BouncerError) -> Message {
        struct Body: Encodable { var text: String }
        return try await call("PATCH", "/v1/messages/\(Self.segment(id))", body: Body(text: text))
    }

    /// Deletes message `id`: a bounced message is taken back, others become tombstones.
    public func delete(_ id: String) async throws(BouncerError) {
        let _: Empty = try await call("DELETE", "/v1/messages/\(Self.segment(id))")
    }

    /// The actions the caller may take on message `id`, localized: the alert's actions for the
    /// author's bounced message, else `edit` and `delete` on one's own, `flag` (with its
    /// confirmation texts) on others'.
    public func actions(for id: String) async throws(BouncerError) -> [MessageAction] {
        struct List: Decodable { var actions: [MessageAction] }
        let list: List = try await call("GET", "/v1/messages/\(Self.segment(id))/actions")
        return list.actions
    }

    /// Flags message `id` for moderators. Flagging a message the caller has an open flag on
    /// answers that flag.
    /// - Throws: ``BouncerError/ownMessage(_:)`` for one's own message,
    ///   ``BouncerError/invalidField(_:)`` for a reason the service does not have.
    @discardableResult
    public func flag(_ id: String, reason: FlagReason, details: String? = nil) async throws(BouncerError) -> Flag {
        struct Body: Encodable {
            var reason: FlagReason
            var details: String?
        }
        return try await call("POST", "/v1/messages/\(Self.segment(id))/flag", body: Body(reason: reason, details: details))
    }

    /// Withdraws the caller's open flag on message `id`.
    /// - Throws: ``BouncerError/flagNotFound(_:)`` when the caller has none.
    public func withdrawFlag(_ id: String) async throws(BouncerError) {
        let _: Empty = try await call("DELETE", "/v1/messages/\(Self.segment(id))/flag")
    }

    /// Message `id` as a handle, for calling its actions without repeating the id (no request
    /// is made).
    public func handle(for id: String) -> MessageHandle { MessageHandle(client: self, id: id) }

    // MARK: - Texts

    /// The service's texts for `locale` (its overrides and bundled texts, with its fallbacks).
    /// - Throws: ``BouncerError/localeNotFound(_:)`` when the service has none for it.
    public func strings(for locale: String) async throws(BouncerError) -> [String: String] {
        struct Strings: Decodable { var strings: [String: String] }
        let strings: Strings = try await call("GET", "/v1/localization/\(Self.segment(locale))")
        return strings.strings
    }

    // MARK: - Events

    /// The service's events, live (`GET /v1/events/stream`, a moderator's route), as an
    /// `AsyncSequence` that reconnects by itself after a dropped connection and resumes after
    /// the last event it delivered (`Last-Event-ID`): nothing missed, nothing twice.
    ///
    /// Without `after`, the stream starts at the log's end as it connects; should that first
    /// connection drop before any event arrives, the next one starts at the log's end again.
    /// Pass the id of the last event the app handled to be exact from the start.
    ///
    /// - Parameters:
    ///   - types: the event types wanted (`message.bounced`, `message.flagged` ...); all if nil.
    ///   - after: start after this event id; from now on if nil.
    ///   - reconnectDelay: how long to wait before reconnecting; the server's `retry:` if nil.
    public func events(types: [String]? = nil, after: Int64? = nil, reconnectDelay: Duration? = nil) -> EventStream {
        EventStream(client: self, types: types, after: after, reconnectDelay: reconnectDelay)
    }

    // MARK: - Requests

    struct Empty: Decodable {}

    /// A path segment, percent-encoded.
    static func segment(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil) async throws(BouncerError) -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .connection(description: "the base URL \(baseURL) is not a URL")
        }
        components.percentEncodedPath = components.percentEncodedPath.trimmingTrailingSlashes + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .connection(description: "no URL for \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(locale, forHTTPHeaderField: "Accept-Language")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let token: String
        do {
            token = try await tokenProvider.token()
        } catch {
            throw .connection(description: "no token: \(error)")
        }
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    func call<Output: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], retrying: Bool = false) async throws(BouncerError) -> Output {
        try await call(method, path, query: query, bodyData: nil, retrying: retrying)
    }

    func call<Body: Encodable, Output: Decodable>(_ method: String, _ path: String, body: Body, retrying: Bool = false) async throws(BouncerError) -> Output {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw .connection(description: "the request could not be encoded: \(error)")
        }
        return try await call(method, path, bodyData: data, retrying: retrying)
    }

    /// Makes the request; with `retrying` (sends only), tries again on a connection failure or
    /// a 503 with `Retry-After`, as ``retryPolicy`` allows.
    private func call<Output: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], bodyData: Data?,
                                         retrying: Bool) async throws(BouncerError) -> Output {
        let attempts = retrying ? retryPolicy.maxAttempts : 1
        var delay = retryPolicy.initialDelay
        var attempt = 1
        while true {
            do {
                let request = try await request(method, path, query: query, body: bodyData)
                return try await perform(request)
            } catch {
                guard attempt < attempts, let wait = retryDelay(after: error, backoff: delay) else { throw error }
                attempt += 1
                delay *= 2
                do { try await Task.sleep(for: wait) } catch { throw .connection(description: "cancelled") }
            }
        }
    }

    /// How long to wait before trying a send again after `error`; nil when it is not tried again.
    private func retryDelay(after error: BouncerError, backoff: Duration) -> Duration? {
        switch error {
        case .connection:
            return backoff
        case .storeUnavailable(let problem), .unknown(_, let problem):
            guard problem.status == 503, let seconds = problem.retryAfter, .seconds(seconds) <= retryPolicy.maxRetryAfter else { return nil }
            return .seconds(seconds)
        default:
            return nil
        }
    }

    private func perform<Output: Decodable>(_ request: URLRequest) async throws(BouncerError) -> Output {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .connection(description: String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else { throw .connection(description: "not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            if let problem = Problem(data: data, response: http) { throw BouncerError(problem) }
            throw .unexpectedResponse(status: http.statusCode, body: String(decoding: data, as: UTF8.self))
        }
        if Output.self == Empty.self { return Empty() as! Output }
        do {
            return try JSONDecoder().decode(Output.self, from: data)
        } catch {
            throw .unexpectedResponse(status: http.statusCode, body: String(decoding: data, as: UTF8.self))
        }
    }
}

extension String {
    var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// A message by its id, with the calls that act on it.
///
/// ```swift
/// let handle = client.handle(for: message.id)
/// let flag = try await handle.actions().first { $0.id == "flag" }
/// try await handle.flag(reason: .spam)
/// ```
public struct MessageHandle: Sendable {
    /// The client the calls go through.
    public let client: BouncerClient
    /// The message's id.
    public let id: String

    /// The message as the caller may see it now.
    public func get() async throws(BouncerError) -> Message { try await client.message(id) }
    /// Send Anyway (see ``BouncerClient/sendAnyway(_:)``).
    @discardableResult
    public func sendAnyway() async throws(BouncerError) -> Message { try await client.sendAnyway(id) }
    /// Edits the text (see ``BouncerClient/edit(_:text:)``).
    @discardableResult
    public func edit(text: String) async throws(BouncerError) -> Message { try await client.edit(id, text: text) }
    /// Deletes the message (see ``BouncerClient/delete(_:)``).
    public func delete() async throws(BouncerError) { try await client.delete(id) }
    /// The actions the caller may take on it (see ``BouncerClient/actions(for:)``).
    public func actions() async throws(BouncerError) -> [MessageAction] { try await client.actions(for: id) }
    /// Flags it (see ``BouncerClient/flag(_:reason:details:)``).
    @discardableResult
    public func flag(reason: FlagReason, details: String? = nil) async throws(BouncerError) -> Flag {
        try await client.flag(id, reason: reason, details: details)
    }
    /// Withdraws the caller's flag (see ``BouncerClient/withdrawFlag(_:)``).
    public func withdrawFlag() async throws(BouncerError) { try await client.withdrawFlag(id) }
}

/// A channel's pages, newest first, as an `AsyncSequence`: each element is one page, in
/// chronological order; the sequence ends after the last page.
public struct ChannelPages: AsyncSequence, Sendable {
    public typealias Element = MessagePage
    let client: BouncerClient
    let channel: String
    let limit: Int

    /// Reads the pages one request at a time, each after the one before.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: BouncerClient
        let channel: String
        let limit: Int
        var cursor: String?
        var done = false

        /// The next (older) page; nil after the last.
        /// - Throws: ``BouncerError``.
        public mutating func next() async throws -> MessagePage? {
            guard !done else { return nil }
            let page = try await client.messages(in: channel, limit: limit, cursor: cursor)
            cursor = page.nextCursor
            done = page.nextCursor == nil
            return page
        }
    }

    /// An iterator from the newest page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(client: client, channel: channel, limit: limit) }
}
