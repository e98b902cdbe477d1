import BouncerIdentity
import Foundation
import Testing
import TestSupport

/// `GET /v1/events/stream`: Server-Sent Events, read as a browser's EventSource reads them.
@Suite(.oneInstance) struct EventStreamTests {
    typealias Harness = BlackBoxHarness

    static func open(_ h: Harness, _ query: String = "", headers: [String: String] = [:], as user: String? = "mod") throws -> EventStreamClient {
        var headers = headers
        if let user { headers["Authorization"] = "Bearer \(h.tokens[user]!)" }
        return try EventStreamClient(port: h.service.port, path: "/v1/events/stream" + query, headers: headers)
    }

    /// Changes made through any instance reach a stream in commit order; one filtered by type
    /// gets those types only; a stream that resumes from the last id it read misses nothing and
    /// repeats nothing; one from `after=0` starts at the beginning.
    @Test func eventsArriveLiveInOrderAndAResumedStreamMissesNothing() async throws {
        try await blocking {
            let h = try Harness()
            let live = try Self.open(h)
            #expect(live.response.status == 200 && live.response.header("content-type") == "text/event-stream")
            let bans = try Self.open(h, "?types=user.banned")
            try h.rule("pear", "bounce")
            #expect(try h.send("a pear", id: "b1").status == 201)
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)

            let first = try live.next(3)
            #expect(first.map(\.type) == ["rule.changed", "message.bounced", "user.banned"])
            let ids = first.compactMap { $0.id.flatMap { Int($0) } }
            #expect(ids.count == 3 && ids == ids.sorted())
            // `data` is the event as GET /v1/events shows it.
            #expect(first[1].json?["type"] as? String == "message.bounced"
                    && (first[1].json?["data"] as? [String: Any])?["id"] as? String == "b1")
            let banned = try bans.next()
            #expect(banned.type == "user.banned" && banned.id == first[2].id)
            live.close()

            #expect(try h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
            #expect(try h.send("another pear", id: "b2").status == 201)
            let resumed = try Self.open(h, headers: ["Last-Event-ID": try #require(live.lastEventID)])
            let rest = try resumed.next(2)
            #expect(rest.map(\.type) == ["user.unbanned", "message.bounced"])
            #expect(rest.first?.id.flatMap { Int($0) } == (ids.last ?? 0) + 1, "nothing missed, nothing repeated")

            let fromStart = try Self.open(h, "?after=0")
            #expect(try fromStart.next(5).map(\.type) == ["rule.changed", "message.bounced", "user.banned", "user.unbanned", "message.bounced"])
            // The filtered stream saw none of the others.
            #expect(throws: RawHTTPError.self) { try bans.next(timeout: .milliseconds(300)) }
        }
    }

    /// Browsers' EventSource cannot send headers: the token may come as `access_token`, and it is
    /// never written to the log.
    @Test func theTokenMayComeInTheQueryAndIsNeverLogged() async throws {
        try await blocking {
            let h = try Harness()
            let token = h.tokens["mod"]!
            let stream = try Self.open(h, "?access_token=\(token)", as: nil)
            #expect(stream.response.status == 200)
            try h.rule("pear", "bounce")
            #expect(try stream.next().type == "rule.changed")
            #expect(!h.service.text.contains(token), "the token is not logged")
            #expect(try Self.open(h, as: nil).response.status == 401)
            #expect(try Self.open(h, "?access_token=not-a-token", as: nil).response.status == 401)
            #expect(try Self.open(h, "?access_token=\(h.tokens["alice"]!)", as: nil).response.status == 403)
            #expect(try Self.open(h, headers: ["Last-Event-ID": "x"]).response.status == 400)
            #expect(try Self.open(h, "?types=message.sent").response.status == 400)
            // Only the stream takes a token in the query.
            #expect(try h.client.request("GET", "/v1/events?access_token=\(token)").status == 401)
        }
    }

    /// An idle stream gets a comment line now and then, which keeps proxies from closing it.
    @Test func anIdleStreamGetsHeartbeats() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--event-heartbeat-seconds", "1"])
            let stream = try Self.open(h)
            #expect(stream.waitForComment(containing: "keep-alive", timeout: .seconds(5)))
        }
    }

    /// A reader that stops reading is closed once it falls too far behind (its events are not
    /// queued without bound), the service goes on, and the reader resumes from the last whole
    /// event it read with nothing missed.
    @Test func aReaderThatFallsBehindIsClosedAndResumesWithNothingMissed() async throws {
        try await blocking {
            let h = try Harness()
            try h.rule("pear", "bounce")
            let stalled = try Self.open(h)
            let text = "a pear " + String(repeating: "x", count: 4900)
            var sent = 0
            var closedByServer = false
            while sent < 4000 && !closedByServer {
                for _ in 0..<100 {
                    #expect(try h.send(text).status == 201)
                    sent += 1
                }
                // Asked of the stream's own instance (the service may be several).
                closedByServer = try RawHTTPClient(port: h.service.port).request("GET", "/metrics").text.contains("bouncer_event_streams 0")
            }
            #expect(closedByServer, "the stalled stream was closed after \(sent) events of about 10 kB")
            // What it was sent before the close, then its end.
            var read: [EventStreamClient.Event] = []
            while let event = try? stalled.next(timeout: .seconds(2)) { read.append(event) }
            #expect(stalled.client.peerClosed)
            #expect(!read.isEmpty)
            let last = try #require(stalled.lastEventID.flatMap { Int64($0) })
            let resumed = try Self.open(h, headers: ["Last-Event-ID": String(last)])
            let expected = sent + 1 - Int(last)  // the events are the rule's (1) and one a bounce
            let rest = try resumed.next(expected, timeout: .seconds(20))
            let ids = rest.compactMap { $0.id.flatMap { Int64($0) } }
            #expect(ids == Array((last + 1)...(last + Int64(expected))), "every event after the last one read, once")
            #expect(try h.send("still serving").status == 201)
        }
    }

    /// One identity holds at most eight streams, and streams at most a quarter of the connections:
    /// what one token opens cannot take the connections other users' requests need.
    @Test func streamsAreBoundedPerIdentityAndInAll() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--max-connections", "40"])
            try h.addUsers(["mod2", "mod3"], role: "moderator")
            var streams: [EventStreamClient] = []
            for _ in 0..<8 {
                let stream = try Self.open(h)
                #expect(stream.response.status == 200)
                streams.append(stream)
            }
            let ninth = try Self.open(h)
            #expect(ninth.response.status == 429)
            #expect(ninth.response.header("Retry-After") != nil)
            ninth.close()
            // Others are not held back by one identity's streams.
            let other = try EventStreamClient(port: h.service.port, path: "/v1/events/stream",
                                              headers: ["Authorization": "Bearer \(h.tokens["root"]!)"])
            #expect(other.response.status == 200)
            #expect(try h.call("GET", "/v1/me", as: "alice").status == 200)
            // A stream closed gives its place back.
            streams.removeLast().close()
            let deadline = ContinuousClock.now + .seconds(10)
            var again: EventStreamClient?
            while ContinuousClock.now < deadline {
                let stream = try Self.open(h)
                if stream.response.status == 200 { again = stream; break }
                stream.close()
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(again != nil, "waited 10 s for the closed stream's place")
            // Ten streams are a quarter of 40 connections: the eleventh is refused whoever asks.
            let tenth = try EventStreamClient(port: h.service.port, path: "/v1/events/stream",
                                              headers: ["Authorization": "Bearer \(h.tokens["mod2"]!)"])
            #expect(tenth.response.status == 200)
            let past = try EventStreamClient(port: h.service.port, path: "/v1/events/stream",
                                             headers: ["Authorization": "Bearer \(h.tokens["mod3"]!)"])
            #expect(past.response.status == 429)
            withExtendedLifetime((streams, other, again, tenth)) {}
            #expect(try h.call("GET", "/v1/me", as: "alice").status == 200, "requests are still served")
        }
    }

    /// A stream lasts no longer than its token: it is closed at the token's expiry.
    @Test func aStreamIsClosedWhenItsTokenExpires() async throws {
        try await blocking {
            let secret = "stream-expiry-test-secret-0123456789abcdef"
            let h = try Harness(environment: ["BOUNCER_JWT_SECRET": secret])
            // Past its `exp` by all but ten seconds of the leeway the service allows (room for a
            // busy machine to open the stream before the token ends).
            let token = TokenSigner(secret: Array(secret.utf8)).token(for: Identity(userID: "mod-x", role: .moderator),
                                                                         lifetime: 10 - TokenVerifier.leeway)
            let stream = try EventStreamClient(port: h.service.port, path: "/v1/events/stream",
                                               headers: ["Authorization": "Bearer \(token)"])
            #expect(stream.response.status == 200)
            #expect(stream.waitForServerClose(timeout: .seconds(40)), "closed within 40 s of a token that expired in 10")
            let again = try EventStreamClient(port: h.service.port, path: "/v1/events/stream",
                                              headers: ["Authorization": "Bearer \(token)"])
            #expect(again.response.status == 401, "and the same token cannot open it again")
            // A token without expiry keeps its stream.
            let lasting = try Self.open(h)
            #expect(!lasting.waitForServerClose(timeout: .seconds(2)))
        }
    }
}
