import Foundation
import Testing
import TestSupport

/// `GET /v1/events`: every change that matters outside Bouncer, in commit order, from any point.
@Suite struct EventsTests {
    @Test func adminChangesAreEventsReadInOrderFromAnyPoint() async throws {
        try await blocking {
            let h = try MessagesTests.Harness()
            try h.rule("pear", "bounce")
            #expect(try h.call("PATCH", "/v1/config", as: "root", body: #"{"max_message_length":300}"#).status == 200)
            #expect(try h.call("PUT", "/v1/localization/de", as: "root",
                               body: #"{"strings":{"message.moderation.alert.title":"Wirklich?"}}"#).status == 200)
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)
            #expect(try h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)

            let page = try h.call("GET", "/v1/events", as: "mod")
            #expect(page.status == 200)
            let body = try #require(page.json)
            let events = try #require(body["events"] as? [[String: Any]])
            #expect(events.compactMap { $0["type"] as? String }
                    == ["rule.changed", "config.changed", "localization.changed", "user.banned", "user.unbanned"])
            let ids = events.compactMap { $0["id"] as? Int }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(body["next_after"] as? Int == ids.last)
            let rule = try #require(events[0]["data"] as? [String: Any])
            #expect(rule["change"] as? String == "created" && (rule["rule"] as? [String: Any])?["pattern"] as? String == "pear")
            #expect((events[1]["data"] as? [String: Any])?["max_message_length"] as? Int == 300)
            #expect((events[2]["data"] as? [String: Any])?["set"] as? [String] == ["message.moderation.alert.title"])
            #expect((events[3]["data"] as? [String: Any])?["reason"] as? String == "spam")
            #expect((events[4]["data"] as? [String: Any])?["user_id"] as? String == "bob")
            #expect(events.allSatisfy { ($0["created_at"] as? String)?.hasSuffix("Z") == true })

            // From a point on, of some types only; past the end, nothing and the same point.
            let bans = try h.call("GET", "/v1/events?types=user.banned,user.unbanned&after=\(ids[0])", as: "mod").json
            #expect((bans?["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["user.banned", "user.unbanned"])
            let last = try #require(ids.last)
            let empty = try h.call("GET", "/v1/events?after=\(last)", as: "mod").json
            #expect((empty?["events"] as? [Any])?.isEmpty == true && empty?["next_after"] as? Int == last)
            #expect(try h.call("GET", "/v1/events?limit=2", as: "mod").json.flatMap { $0["next_after"] as? Int } == ids[1])

            #expect(try h.call("GET", "/v1/events?types=message.sent", as: "mod").status == 400)
            #expect(try h.call("GET", "/v1/events?types=", as: "mod").status == 400)
            #expect(try h.call("GET", "/v1/events?types=user.banned,", as: "mod").status == 400)
            #expect(try h.call("GET", "/v1/events?after=-1", as: "mod").status == 400)
            #expect(try h.call("GET", "/v1/events", as: "alice").status == 403)
        }
    }
}
