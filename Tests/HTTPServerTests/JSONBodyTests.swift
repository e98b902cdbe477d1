import Testing
@testable import HTTPServer

@Suite("JSON request bodies")
struct JSONBodyTests {
    struct Payload: Decodable, Equatable {
        var text: String
        var count: Int?
        var tags: [String]?
    }

    static func request(_ body: String, contentType: String? = "application/json", depth: Int = 64) -> Request {
        var headers: HTTPHeaders = ["host": "x"]
        if let contentType { headers.add("content-type", contentType) }
        let head = RequestHead(method: "POST", target: "/", version: .http1_1, headers: headers,
                               framing: .length(body.utf8.count), keepAlive: true, expectsContinue: false)
        return Request(head: head, body: Array(body.utf8), id: "test", maxJSONDepth: depth)
    }

    static func code(_ request: Request) -> (Int, String)? {
        do {
            _ = try request.decodeJSON(Payload.self)
            return nil
        } catch {
            return (error.status.code, error.code)
        }
    }

    @Test func validBodiesDecode() throws {
        #expect(try Self.request(#"{"text":"hi","count":2}"#).decodeJSON(Payload.self) == Payload(text: "hi", count: 2))
        #expect(try Self.request(#"{"text":"x"}"#, contentType: "application/json; charset=utf-8").decodeJSON(Payload.self).text == "x")
        #expect(try Self.request(#"{"text":"x"}"#, contentType: "application/merge-patch+json").decodeJSON(Payload.self).text == "x")
        #expect(try Self.request(#"{"text":"x"}"#, contentType: nil).decodeJSON(Payload.self).text == "x")
    }

    @Test(arguments: [
        (#"{"text":"x""#, 400, "invalid_json"),
        ("", 400, "invalid_json"),
        ("not json", 400, "invalid_json"),
        (#"{"count":1}"#, 400, "invalid_field"),
        (#"{"text":5}"#, 400, "invalid_field"),
        (#"{"text":"x","tags":[1]}"#, 400, "invalid_field"),
        (#"{"text":null}"#, 400, "invalid_field"),
    ])
    func badBodiesAreClientErrors(body: String, status: Int, code: String) {
        #expect(Self.code(Self.request(body))! == (status, code))
    }

    @Test func aDeclaredNonJSONTypeIs415() {
        #expect(Self.code(Self.request(#"{"text":"x"}"#, contentType: "text/plain"))! == (415, "unsupported_media_type"))
        #expect(Self.code(Self.request("text=x", contentType: "application/x-www-form-urlencoded"))! == (415, "unsupported_media_type"))
    }

    @Test func nestingIsLimitedBeforeParsing() {
        let limit = 64
        let atLimit = "{\"text\":\"x\",\"deep\":" + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1) + "}"
        #expect(Self.code(Self.request(atLimit, depth: limit)) == nil)
        let overLimit = "{\"text\":\"x\",\"deep\":" + String(repeating: "[", count: limit) + String(repeating: "]", count: limit) + "}"
        #expect(Self.code(Self.request(overLimit, depth: limit))! == (400, "json_too_deep"))
        // A million unclosed brackets are refused by counting, not by a parser recursing into them.
        #expect(Self.code(Self.request(String(repeating: "[", count: 1_000_000)))! == (400, "json_too_deep"))
    }

    @Test func bracketsInsideStringsDoNotCount() throws {
        let text = String(repeating: "[{", count: 100) + #"\"]"#
        let body = #"{"text":""# + text + #""}"#
        #expect(try Self.request(body, depth: 2).decodeJSON(Payload.self).text == String(repeating: "[{", count: 100) + "\"]")
    }

    @Test func theFieldIsNamedInTheDetail() {
        do {
            _ = try Self.request(#"{"text":"x","tags":["a",2]}"#).decodeJSON(Payload.self)
            Issue.record("expected a decoding error")
        } catch {
            #expect(error.detail.contains("tags[1]"))
        }
    }
}

extension JSONBodyTests {
    /// The one change from Foundation's decoder: bodies are read by the strict parser, which
    /// refuses what is not RFC 8259 JSON (JSONDecoder let these through).
    @Test(arguments: [
        #"{"text":"x","text":"y"}"#,  // a duplicate key, as tokens and sends refuse it
        #"{"text":"x","tags":[],"tags":["a"]}"#,
        #"{"text":"x",}"#,            // a trailing comma
        "\u{FEFF}{\"text\":\"x\"}",   // a byte order mark
    ])
    func whatIsNotStrictJSONIsInvalidJSON(body: String) {
        #expect(Self.code(Self.request(body))! == (400, "invalid_json"))
    }

    @Test func theMessagesNameTheFieldAsBefore() throws {
        func detail(_ body: String) -> String? {
            do {
                _ = try Self.request(body).decodeJSON(Payload.self)
                return nil
            } catch {
                return error.detail
            }
        }
        #expect(detail(#"{"count":1}"#) == "The field `text` is required.")
        #expect(detail(#"{"text":"x","tags":["a",null]}"#) == "The field `tags[1]` has the wrong type.")
        #expect(detail(#"{"text":"x","count":"2"}"#) == "The field `count` has the wrong type.")
        #expect(detail("[]") == "The field `` has the wrong type.")
        // A number that does not fit an integer was, to JSONDecoder, not valid JSON.
        #expect(detail(#"{"text":"x","count":2.5}"#) == "The request body is not valid JSON.")
        #expect(try Self.request(#"{"text":"x","count":2.0}"#).decodeJSON(Payload.self).count == 2)
    }
}
