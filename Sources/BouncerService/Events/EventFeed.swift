import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// Follows the event log for the streams of `GET /v1/events/stream`: one reader of the store for
/// every stream of this instance, each new event encoded once, and the same bytes handed to every
/// stream that takes it. A stream that starts from an earlier point catches up from the store
/// first, then joins. The log's ids increase in commit order, so reading on from the last id seen
/// misses nothing, whichever instance wrote the event.
final class EventFeed: Sendable {
    /// An event as a stream sends it: `id:`, `event:` and one `data:` line.
    struct Frame: Sendable {
        let id: Int64
        let type: String
        let bytes: [UInt8]

        init(_ event: StoredEvent) {
            id = event.id
            type = event.type
            // The JSON is on one line: its strings escape line breaks.
            bytes = Array("id: \(event.id)\nevent: \(event.type)\ndata: ".utf8) + EventRoutes.json(event) + Array("\n\n".utf8)
        }
    }

    private struct Subscriber {
        let stream: ResponseStream
        /// Nil: every type.
        let types: Set<String>?
        /// The last event id the stream has been handed (or passed over).
        var position: Int64
        /// Reading the store on its own until it reaches the feed.
        var catchingUp: Bool
        /// Seconds since 1970 when its token expires: the stream is closed then.
        let closesAt: Double?
        /// Its place among the streams allowed (given back when the stream is gone).
        let ticket: Ticket
    }

    /// A place among the streams allowed, held from the request's check until the stream is
    /// gone; given back when released, however the stream ends (or if it never starts).
    final class Ticket: Sendable {
        private let release: @Sendable () -> Void

        init(release: @escaping @Sendable () -> Void) {
            self.release = release
        }

        deinit { release() }
    }

    /// What bounds streams: each identity's, and all of this instance's, so that streams cannot
    /// take the connections requests need.
    struct Limits: Sendable {
        var perIdentity = 8
        var total = 2_500
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextKey = 0
        /// The newest events read, oldest first, for streams that join from close behind.
        var recent: [Frame] = []
        /// The last id read from the log; nil while no stream follows it.
        var head: Int64?
        var lastHeartbeat = ContinuousClock.now
        /// Streams allowed and not yet gone, by user id, and in all.
        var openByUser: [String: Int] = [:]
        var open = 0
    }

    private let repository: any EventRepository
    private let logger: Logger
    private let pollInterval: Duration
    private let heartbeatInterval: Duration
    private let state = Locked(State())
    private let reader: Locked<Task<Void, Never>?> = Locked(nil)

    /// Events kept for joining streams.
    private static let recentLimit = 4096
    /// Events read from the store at once.
    private static let page = 500
    /// Bytes a catching-up stream may have waiting before the next page is read for it.
    private static let catchUpBacklog = 64 * 1024

    let limits: Limits

    init(repository: any EventRepository, logger: Logger, pollInterval: Duration = .milliseconds(20),
         heartbeatInterval: Duration = .seconds(15), limits: Limits = Limits()) {
        self.repository = repository
        self.logger = logger
        self.pollInterval = pollInterval
        self.heartbeatInterval = heartbeatInterval
        self.limits = limits
    }

    var streamCount: Int { state.withLock { $0.subscribers.count } }

    /// A place for one more stream of `userID`'s, or 429 `too_many_streams` past the limits.
    func admit(_ userID: String) throws(HTTPError) -> Ticket {
        let limits = self.limits
        let refusal = state.withLock { state -> (detail: String, key: String, arguments: [String])? in
            if state.openByUser[userID, default: 0] >= limits.perIdentity {
                return ("You have \(limits.perIdentity) event streams open already; close one first.", "streams.per_identity", [String(limits.perIdentity)])
            }
            if state.open >= limits.total { return ("This instance has as many event streams as it takes; try again later.", "streams.instance", []) }
            state.openByUser[userID, default: 0] += 1
            state.open += 1
            return nil
        }
        if let refusal {
            throw HTTPError(.tooManyRequests, code: "too_many_streams", detail: refusal.detail, headers: ["Retry-After": "5"])
                .keyed(refusal.key, arguments: refusal.arguments)
        }
        return Ticket { [state] in
            state.withLock { state in
                state.open -= 1
                let left = state.openByUser[userID, default: 1] - 1
                state.openByUser[userID] = left > 0 ? left : nil
            }
        }
    }

    /// Sends `stream` the events after `after` (nil: from now on), of `types` only when given,
    /// until it closes, or at `closesAt` (seconds since 1970: when its token expires).
    func follow(_ stream: ResponseStream, after: Int64?, types: Set<String>?, closesAt: Double? = nil, ticket: Ticket) {
        let key = state.withLock { state -> Int in
            defer { state.nextKey += 1 }
            state.subscribers[state.nextKey] = Subscriber(stream: stream, types: types, position: after ?? -1, catchingUp: true,
                                                          closesAt: closesAt, ticket: ticket)
            return state.nextKey
        }
        stream.onClose { [self] in
            // Taken out under the lock and let go after it: its ticket gives its place back under
            // the same lock.
            let gone = state.withLock { $0.subscribers.removeValue(forKey: key) }
            withExtendedLifetime(gone) {}
        }
        startReading()
        Task { await catchUp(key, from: after) }
    }

    func stop() {
        reader.withLock { $0?.cancel() }
    }

    // MARK: - Catching up

    /// Reads the store for one stream from `from` (nil: the log's end) until it reaches the
    /// events the feed has read, then hands it over to the feed.
    private func catchUp(_ key: Int, from: Int64?) async {
        do {
            var position: Int64
            if let from { position = from } else { position = try await repository.lastEventID() }
            while true {
                guard let subscriber = state.withLock({ $0.subscribers[key] }), !subscriber.stream.isClosed else { return }
                if join(key, at: position) { return }
                // Read on only as fast as the reader takes it.
                while subscriber.stream.backlog > Self.catchUpBacklog && !subscriber.stream.isClosed {
                    try await Task.sleep(for: .milliseconds(5))
                }
                let events = try await repository.events(after: position, types: nil, limit: Self.page)
                let frames = events.map(Frame.init)
                if let bytes = Self.bytes(of: frames, types: subscriber.types) { subscriber.stream.send(bytes) }
                position = frames.last?.id ?? position
                if events.isEmpty {
                    // At the log's end, but the feed has not read that far yet.
                    try await Task.sleep(for: pollInterval)
                }
            }
        } catch is CancellationError {
        } catch {
            logger.warn("an event stream could not read the event log; it is closed, and its reader resumes from its last id",
                        ["error": .string(String(describing: error))])
            state.withLock { $0.subscribers[key]?.stream }?.finish()
        }
    }

    /// Hands the stream over to the feed if the feed's recent events reach back to `position`,
    /// sending it those after `position` first. Atomic with the feed's handing out of events, so
    /// none is missed or sent twice.
    private func join(_ key: Int, at position: Int64) -> Bool {
        state.withLock { state in
            guard let head = state.head, var subscriber = state.subscribers[key] else { return false }
            guard position >= head || position >= (state.recent.first?.id ?? head + 1) - 1 else { return false }
            if position < head, let start = state.recent.firstIndex(where: { $0.id > position }),
               let bytes = Self.bytes(of: Array(state.recent[start...]), types: subscriber.types) {
                subscriber.stream.send(bytes)
            }
            subscriber.position = max(position, head)
            subscriber.catchingUp = false
            state.subscribers[key] = subscriber
            return true
        }
    }

    // MARK: - Reading the log

    /// Starts the reader of the log, which runs from the first stream on: every `pollInterval`
    /// while streams follow it, every second while none does (so that it always knows where
    /// the log ends, and a stream that comes later joins at once).
    private func startReading() {
        reader.withLock { reader in
            guard reader == nil else { return }
            reader = Task { await read() }
        }
    }

    private func read() async {
        var failing = false
        while !Task.isCancelled {
            do {
                let head: Int64
                if let known = state.withLock({ $0.head }) {
                    head = known
                } else {
                    head = try await repository.lastEventID()
                    state.withLock { state in
                        state.head = head
                        state.recent = []
                    }
                }
                let events = try await repository.events(after: head, types: nil, limit: Self.page)
                if failing {
                    logger.info("event streams read the event log again")
                    failing = false
                }
                if !events.isEmpty { hand(events.map(Frame.init)) }
                heartbeatIfDue()
                closeExpired()
                if events.count < Self.page {
                    try await Task.sleep(for: state.withLock { $0.subscribers.isEmpty } ? .seconds(1) : pollInterval)
                }
            } catch is CancellationError {
                return
            } catch {
                if !failing {
                    logger.warn("event streams cannot read the event log; retrying every second", ["error": .string(String(describing: error))])
                    failing = true
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Hands new events to every stream that follows the feed.
    private func hand(_ frames: [Frame]) {
        guard let last = frames.last?.id else { return }
        let everything = frames.flatMap(\.bytes)
        state.withLock { state in
            state.recent += frames
            if state.recent.count > Self.recentLimit { state.recent.removeFirst(state.recent.count - Self.recentLimit) }
            state.head = last
            for (key, subscriber) in state.subscribers where !subscriber.catchingUp {
                // A stream that caught up past the feed's last read has some of these already.
                let bytes = subscriber.types == nil && subscriber.position < frames[0].id
                    ? everything : Self.bytes(of: frames.filter { $0.id > subscriber.position }, types: subscriber.types)
                if let bytes { subscriber.stream.send(bytes) }
                state.subscribers[key]?.position = max(last, subscriber.position)
            }
        }
    }

    /// A comment line to every stream now and then: proxies and clients keep an idle connection.
    private func heartbeatIfDue() {
        let streams = state.withLock { state -> [ResponseStream] in
            guard ContinuousClock.now - state.lastHeartbeat >= heartbeatInterval else { return [] }
            state.lastHeartbeat = .now
            return state.subscribers.values.map(\.stream)
        }
        for stream in streams { stream.send(Self.heartbeat) }
    }

    private static let heartbeat = Array(": keep-alive\n\n".utf8)

    /// Ends the streams whose tokens have expired: a token's rights end at its `exp`, and a
    /// client that reconnects must show a valid one.
    private func closeExpired() {
        let now = Date().timeIntervalSince1970
        let expired = state.withLock { state in
            state.subscribers.values.filter { ($0.closesAt ?? .infinity) <= now }.map(\.stream)
        }
        for stream in expired { stream.finish() }
    }

    /// The frames of `types` (all, when nil) one after another; nil when none is.
    private static func bytes(of frames: [Frame], types: Set<String>?) -> [UInt8]? {
        var bytes: [UInt8] = []
        for frame in frames where types?.contains(frame.type) ?? true { bytes += frame.bytes }
        return bytes.isEmpty ? nil : bytes
    }
}
