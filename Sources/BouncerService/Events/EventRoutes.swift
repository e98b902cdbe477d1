import BouncerStore
import HTTPServer

/// `GET /v1/events`: the event log from a point on, oldest first, for a client that catches up
/// (or polls) instead of holding a stream open.
struct EventRoutes: Sendable {
    let repository: any EventRepository

    func register(in routes: inout Routes) {
        let repository = self.repository
        routes.add("GET", "/v1/events", .moderator) { request, _ in
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

    /// An event as the API shows it: `data` is stored as the JSON it is.
    static func json(_ event: StoredEvent) -> [UInt8] {
        Array(#"{"id":\#(event.id),"type":"\#(event.type)","created_at":"\#(event.createdAt)","data":"#.utf8) + Array(event.data.utf8)
            + [UInt8(ascii: "}")]
    }

    static func after(_ request: Request) throws(HTTPError) -> Int64 {
        guard let text = request.query("after") else { return 0 }
        guard let after = Int64(text), after >= 0 else { throw .badRequest("invalid_field", "`after` must be an event id (0 or more).") }
        return after
    }

    /// `types=a,b`: each must be a type Bouncer has.
    static func types(_ request: Request) throws(HTTPError) -> [String]? {
        guard let text = request.query("types") else { return nil }
        let types = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, types.count <= EventType.allCases.count, types.allSatisfy({ EventType(rawValue: $0) != nil }) else {
            throw .badRequest("invalid_field", "`types` must be event types, separated by commas: "
                              + EventType.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        return types
    }
}
