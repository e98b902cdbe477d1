import Dispatch
import Testing
@testable import HTTPServer

/// `HTTPServer.respond(to:)`: a request answered as a connection would answer it, without a socket.
@Suite struct InProcessTests {
    static let server: HTTPServer = {
        var router = Router()
        router.add("GET", "/items/{id}", .immediate { request in Response(body: Array("item \(try request.parameter("id"))".utf8)) })
        // A handler that reads a segment its route does not declare.
        router.add("GET", "/misread/{id}", .immediate { request in Response(body: Array(try request.parameter("item_id").utf8)) })
        router.add("POST", "/items", .async { request in Response(status: .created, body: request.body) }, maxBodyBytes: 8)
        router.add("PUT", "/later", .callback { _, responder in
            DispatchQueue.global().async { responder.respond { Response(status: .noContent) } }
        })
        router.add("GET", "/fails", .async { _ in throw HTTPError(.conflict, code: "taken", detail: "Taken.") })
        return HTTPServer(configuration: HTTPServer.Configuration(), router: router)
    }()

    static func head(_ method: String, _ target: String) -> RequestHead {
        RequestHead(method: method, target: target, version: .http1_1, headers: ["host": "x"], framing: .none,
                    keepAlive: true, expectsContinue: false)
    }

    @Test func eachKindOfHandlerAnswers() async {
        let item = await Self.server.respond(to: Self.head("GET", "/items/42"))
        #expect(item.status == .ok && String(decoding: item.body, as: UTF8.self) == "item 42")
        let created = await Self.server.respond(to: Self.head("POST", "/items"), body: Array("12345678".utf8))
        #expect(created.status == .created && created.body == Array("12345678".utf8))
        #expect(await Self.server.respond(to: Self.head("PUT", "/later")).status == .noContent, "a callback answered from another thread")
    }

    @Test func refusalsAreTheConnectionsProblems() async {
        let tooLarge = await Self.server.respond(to: Self.head("POST", "/items"), body: Array("123456789".utf8))
        #expect(tooLarge.status == .contentTooLarge, "the route's own body limit")
        #expect(await Self.server.respond(to: Self.head("GET", "/nothing")).status == .notFound)
        let wrongMethod = await Self.server.respond(to: Self.head("DELETE", "/items/1"))
        #expect(wrongMethod.status == .methodNotAllowed)
        #expect(wrongMethod.headers["allow"] == "GET, HEAD")
        let misread = await Self.server.respond(to: Self.head("GET", "/misread/7"))
        #expect(misread.status == .internalServerError, "a parameter the route lacks is the code's error, not an empty id")
        let failed = await Self.server.respond(to: Self.head("GET", "/fails"))
        #expect(failed.status == .conflict)
        #expect(String(decoding: failed.body, as: UTF8.self).contains(#""code":"taken""#))
    }
}
