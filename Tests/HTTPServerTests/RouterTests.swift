import Testing
@testable import HTTPServer

/// A handler that answers with its own name, so a test can tell which route matched.
private func named(_ name: String) -> Handler {
    .immediate { _ in Response(body: Array(name.utf8)) }
}

private extension Router.Match {
    /// The name of the matched handler and the parameters, or nil when nothing matched.
    var found: (name: String, parameters: RouteParameters)? {
        guard case .found(let handler, let parameters) = self, case .immediate(let body) = handler else { return nil }
        let request = Request(head: RequestHead(method: "GET", target: "/", version: .http1_1, headers: [:],
                                                framing: .none, keepAlive: true, expectsContinue: false), id: "test")
        guard let response = try? body(request) else { return nil }
        return (String(decoding: response.body, as: UTF8.self), parameters)
    }

    var isNotFound: Bool { if case .notFound = self { true } else { false } }

    var allowed: [String]? { if case .methodNotAllowed(let allowed) = self { allowed } else { nil } }
}

@Suite("Router")
struct RouterTests {
    let router: Router = {
        var router = Router()
        router.get("/", named("root"))
        router.get("/hello", named("hello"))
        router.delete("/hello", named("delete hello"))
        router.get("/users/me", named("me"))
        router.get("/users/{id}", named("user"))
        router.put("/users/{id}", named("put user"))
        router.get("/users/{id}/posts/{post}", named("post"))
        router.post("/submit", named("submit"))
        return router
    }()

    @Test("a literal segment wins over a parameter at the same depth")
    func literalBeatsParameter() {
        #expect(router.match(method: "GET", path: "/users/me").found?.name == "me")
        #expect(router.match(method: "GET", path: "/users/me").found?.parameters == [:])
    }

    @Test("a parameter segment captures the value")
    func parameterCaptures() {
        let match = router.match(method: "GET", path: "/users/42").found
        #expect(match?.name == "user")
        #expect(match?.parameters == ["id": "42"])
        let nested = router.match(method: "GET", path: "/users/7/posts/abc").found
        #expect(nested?.name == "post")
        #expect(nested?.parameters == ["id": "7", "post": "abc"])
    }

    @Test("a path that only a parameter route matches is routed there, even past a literal sibling")
    func parameterBehindLiteralSibling() {
        // /users/me is a literal route, but /users/me/posts/1 only matches /users/{id}/posts/{post}.
        let match = router.match(method: "GET", path: "/users/me/posts/1").found
        #expect(match?.name == "post")
        #expect(match?.parameters == ["id": "me", "post": "1"])
    }

    @Test("parameters are percent-decoded", arguments: [
        ("/users/a%20b", "a b"),
        ("/users/%E2%82%AC", "€"),
        ("/users/a%2Fb", "a/b"),
        ("/users/%41%62c", "Abc"),
        ("/users/a+b", "a+b"),
    ])
    func percentDecoding(path: String, expected: String) {
        let match = router.match(method: "GET", path: Substring(path)).found
        #expect(match?.name == "user")
        #expect(match?.parameters["id"] == expected)
    }

    @Test("a parameter with a malformed escape or invalid UTF-8 does not match", arguments: ["/users/%zz", "/users/%4", "/users/%FF"])
    func malformedEscapes(path: String) {
        #expect(router.match(method: "GET", path: Substring(path)).isNotFound)
    }

    @Test("unknown paths are not found", arguments: ["/nope", "/hello/extra", "/users", "/users/1/posts", "/HELLO"])
    func notFound(path: String) {
        #expect(router.match(method: "GET", path: Substring(path)).isNotFound)
    }

    @Test("a known path with another method is 405 with the allowed methods, HEAD included for GET")
    func methodNotAllowed() {
        #expect(router.match(method: "POST", path: "/hello").allowed == ["DELETE", "GET", "HEAD"])
        #expect(router.match(method: "DELETE", path: "/users/9").allowed == ["GET", "HEAD", "PUT"])
        #expect(router.match(method: "GET", path: "/submit").allowed == ["POST"])
    }

    @Test("HEAD is answered by the GET handler, and only where there is one")
    func headUsesGet() {
        #expect(router.match(method: "HEAD", path: "/hello").found?.name == "hello")
        #expect(router.match(method: "HEAD", path: "/users/5").found?.parameters == ["id": "5"])
        #expect(router.match(method: "HEAD", path: "/submit").allowed == ["POST"])
    }

    @Test("methods are matched exactly")
    func methodCase() {
        #expect(router.match(method: "get", path: "/hello").allowed != nil)
    }

    @Test("a trailing slash, or repeated slashes, reach the same route")
    func trailingSlash() {
        #expect(router.match(method: "GET", path: "/hello/").found?.name == "hello")
        #expect(router.match(method: "GET", path: "/users/3/").found?.parameters == ["id": "3"])
        #expect(router.match(method: "GET", path: "//hello").found?.name == "hello")
        #expect(router.match(method: "GET", path: "/").found?.name == "root")
    }

    @Test("segments are split on slashes byte by byte, non-ASCII and combining marks kept whole")
    func segmentsOfPaths() {
        #expect(Router.segments(of: "/users/e\u{301}/posts//x/") == ["users", "e\u{301}", "posts", "x"])
        #expect(Router.segments(of: "/\u{301}/") == ["\u{301}"])
        #expect(Router.segments(of: "///").isEmpty)
        #expect(router.match(method: "GET", path: "/users/%C3%A9").found?.parameters == ["id": "é"])
    }

    @Test("the path ends at the first question mark, and the query follows it")
    func pathAndQuery() {
        let head = RequestHead(method: "GET", target: "/caf\u{E9}/\u{301}?a=?b", headers: [:])
        #expect(head.path == "/caf\u{E9}/\u{301}")
        #expect(head.query == "a=?b")
        #expect(RequestHead(method: "GET", target: "/plain", headers: [:]).query == nil)
        #expect(RequestHead(method: "GET", target: "/empty?", headers: [:]).query == "")
    }

    @Test("query values are percent-decoded, + reads as a space, and plain ones come back as they are")
    func queryDecoding() {
        let head = RequestHead(method: "GET", target: "/q?a=x+y&b=c%2Bd&c=plain&d=%E2%9C%93&e=%zz&caf%C3%A9=1", headers: [:])
        let request = Request(head: head, id: "test")
        #expect(request.queryItems.map(\.name) == ["a", "b", "c", "d", "e", "café"])
        #expect(request.queryItems.map(\.value) == ["x y", "c+d", "plain", "✓", "%zz", "1"])
    }

    @Test("routes lists what was added")
    func routesList() {
        #expect(router.routes.count == 8)
        #expect(router.routes.contains { $0.method == "GET" && $0.template == "/users/{id}/posts/{post}" })
    }
}
