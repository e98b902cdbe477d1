import BouncerApplication
import BouncerDomain
import BouncerStore
import HTTPServer

/// `GET /v1/events`: the event log from a point on, oldest first, for a client that catches up
/// (or polls) instead of holding a stream open.
struct EventRoutes: Sendable {
    let repository: any EventRepository
    let feed: EventFeed

    func register(in routes: inout Routes) {
        routes.group("/v1/events") { group in
            let (repository, feed) = (self.repository, self.feed)
            // Server-Sent Events: from `Last-Event-ID` (a reconnecting EventSource sends it) or
            // `after`, else from now on.
            group.get("/stream", .moderator, queryToken: true) { request, identity in
                let types = try Self.types(request).map(Set.init)
                var after = try request.query("after").map { _ in try Self.after(request) }
                if let last = request.headers["last-event-id"] {
                    guard let id = Int64(last.trimmingCharacters(in: .whitespaces)), id >= 0 else {
                        throw HTTPError.badRequest("invalid_field", "`Last-Event-ID` must be an event id (0 or more).").keyed("field.event_id", "Last-Event-ID")
                    }
                    after = id
                }
                // "From now on" is the log's end as the answer starts, read before its head goes out:
                // a client that has the head may make a change at once and must see its event.
                // (Read later, on the stream's own task, it could come after that change committed.)
                let ticket = try feed.admit(identity.userID)
                let resume: Int64
                if let after { resume = after } else { resume = try await repository.lastEventID() }
                return Response.streaming(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                                    "X-Accel-Buffering": "no"],
                                          body: Array(": events of Bouncer\nretry: 2000\n\n".utf8)) { stream in
                    feed.follow(stream, after: resume, types: types, closesAt: identity.expires, ticket: ticket)
                }
            }
            group.get("", .moderator) { request, _ in
                let after = try Self.after(request)
                let types = try Self.types(request)
                let events = try await repository.events(after: after, types: types, limit: try Pagination.limit(request))
                var body: [UInt8] = Array(#"{"events":["#.utf8)
                for (index, event) in events.enumerated() {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    body += Self.json(event)
                }
                body += Array(#"],"next_after":\#(events.last?.id ?? after)}"#.utf8)
                return Response.json(.ok, body)
            }
    

        }

    }

    /// An event as the API shows it: `data` is stored as the JSON it is.
    static func json(_ event: StoredEvent) -> [UInt8] { Array(event.json.utf8) }

    static func after(_ request: Request) throws(HTTPError) -> Int64 {
        guard let text = request.query("after") else { return 0 }
        guard let after = Int64(text), after >= 0 else { throw .badRequest("invalid_field", "`after` must be an event id (0 or more).").keyed("field.event_id", "after") }
        return after
    }

    /// `types=a,b`: each must be a type Bouncer has.
    static func types(_ request: Request) throws(HTTPError) -> [String]? {
        guard let text = request.query("types") else { return nil }
        let types = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, types.count <= EventType.allCases.count, types.allSatisfy({ EventType(rawValue: $0) != nil }) else {
            throw .badRequest("invalid_field", "`types` must be event types, separated by commas: "
                              + EventType.allCases.map(\.rawValue).joined(separator: ", ") + ".").keyed("events.types", EventType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return types
    }
}
