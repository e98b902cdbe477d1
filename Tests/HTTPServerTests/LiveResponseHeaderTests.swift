import Testing
import TestSupport
@testable import HTTPServer

@Suite("Live server: response headers, HEAD and problem responses")
struct LiveResponseHeaderTests {
    @Test("every response has Content-Length, an IMF-fixdate Date and a valid X-Request-Id")
    func managedHeaders() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/hello"))
            let response = try await client.readResponse()
            #expect(response.version == "HTTP/1.1")
            #expect(response.status == 200)
            #expect(response.reason == "OK")
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Content-Type") == "text/plain")
            let date = try #require(response.header("Date"))
            #expect(isIMFFixdate(date), "Date: \(date)")
            let id = try #require(response.header("X-Request-Id"))
            #expect(RequestID.isValid(id))
            for name in ["Content-Length", "Date", "X-Request-Id"] {
                #expect(response.headerValues(name).count == 1, "\(name) appears more than once")
            }
        }
    }

    @Test("HEAD is answered by the GET route with its Content-Length and no body")
    func head() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("HEAD", "/hello"))
            let response = try await client.readResponse(expectBody: false)
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Date") != nil)
            #expect(response.header("X-Request-Id") != nil)
            // No body bytes follow the head...
            #expect(try await client.receivesAnythingWithin(.milliseconds(150)) == false)
            // ...so the next response on the connection starts cleanly.
            try await client.send(rawRequest("GET", "/hello"))
            let next = try await client.readResponse()
            #expect(next.status == 200)
            #expect(next.text == "hello")
        }
    }

    @Test("HEAD of an unknown path is a 404 head without its problem body")
    func headNotFound() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("HEAD", "/nope"))
            let response = try await client.readResponse(expectBody: false)
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(Int(response.header("Content-Length") ?? "") ?? 0 > 0)
            #expect(try await client.receivesAnythingWithin(.milliseconds(150)) == false)
        }
    }

    @Test("a valid incoming X-Request-Id is echoed and given to the handler")
    func requestIDEchoed() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            let incoming = "trace-01.AB_cd:ef"
            try await client.send(rawRequest("GET", "/id", headers: ["X-Request-Id: \(incoming)"]))
            let response = try await client.readResponse()
            #expect(response.header("X-Request-Id") == incoming)
            #expect(response.text == incoming)
        }
    }

    @Test("an invalid incoming X-Request-Id is replaced by one the server makes", arguments: [
        "has space",
        String(repeating: "a", count: 200),
        "quote\"d",
        "semi;colon",
    ])
    func requestIDReplaced(incoming: String) async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/id", headers: ["X-Request-Id: \(incoming)"]))
            let response = try await client.readResponse()
            #expect(response.status == 200)
            let id = try #require(response.header("X-Request-Id"))
            #expect(id != incoming)
            #expect(RequestID.isValid(id))
            #expect(response.text == id)
        }
    }

    @Test("requests without an X-Request-Id each get a different one")
    func requestIDsDiffer() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/id") + rawRequest("GET", "/id"))
            let first = try await client.readResponse(), second = try await client.readResponse()
            #expect(first.header("X-Request-Id") != nil)
            #expect(first.header("X-Request-Id") != second.header("X-Request-Id"))
        }
    }

    @Test("an unknown path is a 404 problem JSON, and the connection stays usable")
    func notFound() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/nope"))
            let response = try await client.readResponse()
            expectProblem(response, status: 404, code: "not_found")
            #expect(response.header("Connection") == nil)
            try await client.send(rawRequest("GET", "/hello"))
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test("a known path with the wrong method is a 405 problem JSON with Allow")
    func methodNotAllowed() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("DELETE", "/hello"))
            let response = try await client.readResponse()
            expectProblem(response, status: 405, code: "method_not_allowed")
            #expect(response.header("Allow") == "GET, HEAD")
            try await client.send(rawRequest("GET", "/echo"))
            let other = try await client.readResponse()
            expectProblem(other, status: 405, code: "method_not_allowed")
            #expect(other.header("Allow") == "POST")
        }
    }

    @Test("the problem JSON's request_id is the incoming X-Request-Id when it is valid")
    func problemCarriesIncomingID() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/nope", headers: ["X-Request-Id: abc-123"]))
            let response = try await client.readResponse()
            expectProblem(response, status: 404, code: "not_found")
            #expect(response.json?["request_id"] as? String == "abc-123")
        }
    }
}
