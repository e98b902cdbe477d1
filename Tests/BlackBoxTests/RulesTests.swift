import Foundation
import Testing
import TestSupport

@Suite struct RulesTests {
    struct Tokens {
        var admin: String
        var moderator: String
        var user: String

        init(data: String) throws {
            func mint(_ role: String) throws -> String {
                try TestTokens.mint("\(role)-1", role: role, dataDirectory: data)
            }
            admin = try mint("admin")
            moderator = try mint("moderator")
            user = try mint("user")
        }
    }

    static func json(_ token: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["Authorization": "Bearer \(token)", "Content-Type": "application/json"].merging(extra) { $1 }
    }

    static func check(_ client: RawHTTPClient, _ token: String, _ text: String, timeout: Duration = .seconds(5)) throws -> [String: Any] {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["text": text]), as: UTF8.self)
        return try client.request("POST", "/v1/moderation/check", headers: json(token), body: body, timeout: timeout).json ?? [:]
    }

    @Test func rulesLiveFromCreationToDeletion() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let tokens = try Tokens(data: data)
            var service = try ServiceProcess(arguments: ["--data-dir", data])
            var client = try service.client()

            let created = try client.request("POST", "/v1/rules", headers: Self.json(tokens.admin),
                                             body: #"{"name":"profanity","kind":"word","pattern":"fuck","action":"bounce"}"#)
            #expect(created.status == 201)
            let rule = try #require(created.json)
            let id = try #require(rule["id"] as? String)
            #expect(id.count == 26)
            #expect(rule["channels"] as? [String] == ["*"])
            #expect(rule["enabled"] as? Bool == true)
            #expect(rule["created_by"] as? String == "admin-1")

            let verdict = try Self.check(client, tokens.moderator, "well f.u.c.k that")
            #expect(verdict["action"] as? String == "bounce")
            let matchedRule = try #require((verdict["rules"] as? [[String: Any]])?.first)
            #expect(matchedRule["id"] as? String == id)
            let span = try #require((matchedRule["matched"] as? [[String: Any]])?.first)
            #expect(span["text"] as? String == "f.u.c.k")
            #expect(span["start"] as? Int == 5 && span["end"] as? Int == 12)
            #expect(span["utf16_start"] as? Int == 5 && span["utf16_end"] as? Int == 12)
            #expect(try Self.check(client, tokens.moderator, "nothing to see")["action"] as? String == "none")

            // Roles: users cannot check, moderators cannot write.
            #expect(try client.request("POST", "/v1/moderation/check", headers: Self.json(tokens.user), body: #"{"text":"x"}"#).status == 403)
            #expect(try client.request("POST", "/v1/rules", headers: Self.json(tokens.moderator),
                                       body: #"{"kind":"word","pattern":"x","action":"flag"}"#).status == 403)
            #expect(try client.request("GET", "/v1/rules/\(id)", headers: Self.json(tokens.moderator)).status == 200)

            // Disabled, the rule stops matching; rule changes apply to the next message.
            let patched = try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"enabled":false}"#)
            #expect(patched.status == 200 && patched.json?["enabled"] as? Bool == false)
            #expect(try Self.check(client, tokens.moderator, "fuck")["action"] as? String == "none")
            _ = try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"enabled":true,"action":"remove"}"#)
            #expect(try Self.check(client, tokens.moderator, "fuck")["action"] as? String == "remove")

            // Loaded again at start, with the compiled databases read from the data directory.
            #expect(service.stop() == 0, "\(service.outputTail)")
            #expect(!((try? FileManager.default.contentsOfDirectory(atPath: directory.path("data/rules-cache"))) ?? []).isEmpty)
            service = try ServiceProcess(arguments: ["--data-dir", data])
            client = try service.client()
            #expect(try Self.check(client, tokens.moderator, "FUUUCK")["action"] as? String == "remove")
            let compiled = try #require(service.lines.first { $0.contains("rules compiled") })
            #expect(compiled.contains("databases_loaded=1") || compiled.contains("\"databases_loaded\":1"), "\(compiled)")

            #expect(try client.request("DELETE", "/v1/rules/\(id)", headers: Self.json(tokens.admin)).status == 204)
            #expect(try client.request("GET", "/v1/rules/\(id)", headers: Self.json(tokens.admin)).status == 404)
            #expect(try Self.check(client, tokens.moderator, "fuck")["action"] as? String == "none")
        }
    }

    /// How long each request of the import test may wait: it starts beside every other suite's
    /// services on a debug build, and compiles thousands of rules (a bound on the wait, not a
    /// timing test).
    static let importWait = Duration.seconds(60)

    @Test func importsAreAllOrNothingAndListsPage() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let tokens = try Tokens(data: data)
            let service = try ServiceProcess(arguments: ["--data-dir", data])
            let client = try service.client()
            let text = ["# a comment", ""] + (0..<1000).map { "badword\($0)" }
            let imported = try client.request("POST", "/v1/rules/import?kind=word&action=bounce_flag",
                                              headers: ["Authorization": "Bearer \(tokens.admin)", "Content-Type": "text/plain"],
                                              body: text.joined(separator: "\n"), timeout: Self.importWait)
            #expect(imported.status == 201)
            #expect(imported.json?["imported"] as? Int == 1000)
            #expect(try Self.check(client, tokens.moderator, "you BADWORD999", timeout: Self.importWait)["action"] as? String == "bounce_flag")

            let refused = try client.request("POST", "/v1/rules/import?kind=regex&action=flag",
                                             headers: ["Authorization": "Bearer \(tokens.admin)", "Content-Type": "text/plain"],
                                             body: "fine\\d+\n(x)\\1\nalso fine\n(?<=y)z\n", timeout: Self.importWait)
            #expect(refused.status == 422)
            #expect(refused.json?["code"] as? String == "import_refused")
            let errors = try #require(refused.json?["errors"] as? [[String: Any]])
            #expect(errors.compactMap { $0["line"] as? Int } == [2, 4])

            // JSON, over the default 1 MiB body limit: 5,000 rules with long names (a name may
            // have 200 characters), so that the body is large and the rules to store and compile
            // are not more than they need to be.
            let padding = String(repeating: "x", count: 160)
            let many = (0..<5_000).map { #"{"kind":"word","pattern":"longerimportedword\#($0)","action":"flag","name":"imported rule number \#($0) \#(padding)"}"# }
            let body = #"{"rules":["# + many.joined(separator: ",") + "]}"
            #expect(body.utf8.count > 1024 * 1024)
            // 5,000 rules, and 6,000 compiled before the answer, by a debug build beside the other suites.
            let large = try client.request("POST", "/v1/rules/import", headers: Self.json(tokens.admin), body: body, timeout: Self.importWait)
            #expect(large.status == 201)
            // The requests after it wait as long: the debug build may still be writing the compiled
            // set out beside the other suites (a wait bounded generously, not a timing test).
            let badJSON = try client.request("POST", "/v1/rules/import", headers: Self.json(tokens.admin),
                                             body: #"{"rules":[{"kind":"word","pattern":"ok","action":"flag"},{"kind":"word","pattern":"***","action":"flag"}]}"#,
                                             timeout: Self.importWait)
            #expect(badJSON.status == 422)
            #expect((badJSON.json?["errors"] as? [[String: Any]])?.first?["index"] as? Int == 1)

            // Pages: every rule once, in order.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let path = "/v1/rules?kind=word&limit=200" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try client.request("GET", path, headers: Self.json(tokens.moderator), timeout: Self.importWait)
                #expect(page.status == 200)
                seen += (page.json?["rules"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
                cursor = page.json?["next_cursor"] as? String
            } while cursor != nil && seen.count < 20_000
            #expect(seen.count == 6_000)
            #expect(Set(seen).count == 6_000)
            #expect(seen == seen.sorted())
            let searched = try client.request("GET", "/v1/rules?q=number%204999", headers: Self.json(tokens.moderator), timeout: Self.importWait)
            #expect((searched.json?["rules"] as? [[String: Any]])?.count == 1)
            let flags = try client.request("GET", "/v1/rules?action=bounce_flag&limit=5", headers: Self.json(tokens.moderator), timeout: Self.importWait)
            #expect((flags.json?["rules"] as? [[String: Any]])?.count == 5)
        }
    }

    /// Vectorscan 5.4.9 aborted the process on these regex shapes and a message of 255 bytes or
    /// more (see `Database.regexMode`): one admin rule and one user message took the service down.
    @Test func longMessagesAgainstRegexShapesThatOnceAbortedTheProcess() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let tokens = try Tokens(data: data)
            let service = try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"])
            let client = try service.client()
            let shapes = ["(x|xx)*y", "(a|aa)*b", "(a|aa)+b", "(ab|abab)*c", "(xy|xyxy)+z", "[a-z]+xy", ".*ab",
                          "ab.*cd", "x{2,}y", #"\\bxx\\w*"#, "(a|ab)*c", "[a-z]+coin"]
            for shape in shapes {
                let created = try client.request("POST", "/v1/rules", headers: Self.json(tokens.admin),
                                                 body: #"{"kind":"regex","pattern":"\#(shape)","action":"flag"}"#)
                #expect(created.status == 201, "\(shape)")
            }
            for length in [300, 5000] {
                for letter in ["a", "x"] {
                    let text = String(repeating: letter, count: length)
                    let sent = try client.request("POST", "/v1/channels/messaging:general/messages", headers: Self.json(tokens.user),
                                                  body: #"{"text":"\#(text)"}"#)
                    #expect(sent.status == 201, "\(length) × \(letter)")
                    #expect(try Self.check(client, tokens.moderator, text)["action"] as? String != nil)
                }
            }
            let coin = try Self.check(client, tokens.moderator, String(repeating: "q", count: 4000) + "coin")
            let span = try #require(((coin["rules"] as? [[String: Any]])?.first?["matched"] as? [[String: Any]])?.first)
            #expect(span["start"] as? Int == 0 && span["end"] as? Int == 4004)
            #expect(try client.request("GET", "/healthz").status == 200)
        }
    }
    @Test func inflectionsPerRuleAndForTheRuleSet() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let tokens = try Tokens(data: data)
            var service = try ServiceProcess(arguments: ["--data-dir", data])
            var client = try service.client()
            let created = try client.request("POST", "/v1/rules", headers: Self.json(tokens.admin),
                                             body: #"{"kind":"word","pattern":"fuck","action":"bounce"}"#)
            let id = try #require(created.json?["id"] as? String)
            #expect(created.json?["inflections"] is NSNull, "null: the rule set's setting")
            #expect(try Self.check(client, tokens.moderator, "f*cking hell")["action"] as? String == "bounce")
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "bounce")

            let off = try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"inflections":false}"#)
            #expect(off.json?["inflections"] as? Bool == false)
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "none")
            #expect(try Self.check(client, tokens.moderator, "fuck")["action"] as? String == "bounce")
            #expect(try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"priority":1}"#)
                .json?["inflections"] as? Bool == false, "absent: unchanged")

            let following = try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"inflections":null}"#)
            #expect(following.json?["inflections"] is NSNull)
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "bounce")

            let config = try client.request("PATCH", "/v1/config", headers: Self.json(tokens.admin), body: #"{"rule_inflections":false}"#)
            #expect(config.json?["rule_inflections"] as? Bool == false)
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "none")
            #expect(try client.request("PATCH", "/v1/config", headers: Self.json(tokens.admin), body: #"{"rule_inflections":"no"}"#).status == 400)
            #expect(try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"inflections":"yes"}"#).status == 400)

            // The setting holds across a restart.
            #expect(service.stop() == 0, "\(service.outputTail)")
            service = try ServiceProcess(arguments: ["--data-dir", data])
            client = try service.client()
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "none")
            _ = try client.request("PATCH", "/v1/rules/\(id)", headers: Self.json(tokens.admin), body: #"{"inflections":true}"#)
            #expect(try Self.check(client, tokens.moderator, "fucked")["action"] as? String == "bounce", "the rule's own setting wins")
        }
    }
}
