import Foundation
import Testing
import TestSupport

@Suite struct LocalizationTests {
    static func token(_ data: String, role: String) throws -> String {
        try TestTokens.mint("\(role)-1", role: role, dataDirectory: data)
    }

    @Test func textsComeInTheRequestsLanguage() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let user = try Self.token(data, role: "user")
            let service = try ServiceProcess(arguments: ["--data-dir", data])
            let client = try service.client()
            let auth = ["Authorization": "Bearer \(user)"]

            let german = try client.request("GET", "/v1/localization", headers: auth.merging(["Accept-Language": "fr-CA;q=0.5, de;q=0.8"]) { $1 })
            #expect(german.status == 200)
            #expect(german.header("Content-Language") == "de")
            #expect(german.header("Vary") == "Accept-Language")
            let strings = try #require(german.json?["strings"] as? [String: String])
            #expect(german.json?["locale"] as? String == "de")
            #expect(strings["message.moderation.alert.title"] != nil)
            #expect(strings["message.moderation.alert.title"] != "Are you sure?")

            let some = try client.request("GET", "/v1/localization?locale=pt-BR&keys=message.bounce.title,message.actions.flag", headers: auth)
            #expect(some.header("Content-Language") == "pt-BR")
            #expect((some.json?["strings"] as? [String: String])?.keys.sorted() == ["message.actions.flag", "message.bounce.title"])

            let english = try client.request("GET", "/v1/localization?keys=message.bounce.title", headers: auth)
            #expect(english.header("Content-Language") == "en")
            #expect((english.json?["strings"] as? [String: String])?["message.bounce.title"] == "Message was bounced")

            // Problem titles in another language: the same text the catalog gives for the key.
            let french = try client.request("GET", "/v1/localization/fr", headers: auth)
            let frenchTitle = try #require((french.json?["strings"] as? [String: String])?["error.404.title"])
            let missing = try client.request("GET", "/v1/nothing", headers: ["Accept-Language": "fr"])
            #expect(missing.status == 404)
            #expect(missing.json?["title"] as? String == frenchTitle)
            #expect(frenchTitle != "Not Found")
            #expect(missing.header("Content-Language") == "fr")
            let unauthorized = try client.request("GET", "/v1/me?locale=ja")
            #expect(unauthorized.header("Content-Language") == "ja")
            #expect(unauthorized.json?["title"] as? String != "Unauthorized")

            let locales = try client.request("GET", "/v1/localization/locales", headers: auth)
            let tags = (locales.json?["locales"] as? [[String: Any]])?.compactMap { $0["locale"] as? String } ?? []
            #expect(tags.contains("pt-BR") && tags.contains("zh-Hans") && tags.contains("en"))
            #expect(tags.count >= 13)
            #expect(locales.json?["next_cursor"] is NSNull)
            #expect(try client.request("GET", "/v1/localization/xx", headers: auth).status == 404)
        }
    }

    @Test func adminOverridesApplyAtOnceAndSurviveARestart() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let admin = try Self.token(data, role: "admin")
            let user = try Self.token(data, role: "user")
            var service = try ServiceProcess(arguments: ["--data-dir", data])
            var client = try service.client()
            let asAdmin = ["Authorization": "Bearer \(admin)", "Content-Type": "application/json"]

            let put = try client.request("PUT", "/v1/localization/fr", headers: asAdmin,
                                         body: #"{"strings":{"message.moderation.alert.title":"Vraiment ?"}}"#)
            #expect(put.status == 200)
            #expect(put.json?["overridden"] as? [String] == ["message.moderation.alert.title"])
            let alert = { (client: RawHTTPClient) throws -> String? in
                let response = try client.request("GET", "/v1/localization?locale=fr-CA&keys=message.moderation.alert.title",
                                                  headers: ["Authorization": "Bearer \(user)"])
                return (response.json?["strings"] as? [String: String])?["message.moderation.alert.title"]
            }
            #expect(try alert(client) == "Vraiment ?")

            // A .strings body merges: the key given replaces, others stay.
            let strings = "/* override */\n\"message.bounce.title\" = \"Message renvoyé\";\n"
            let merged = try client.request("PUT", "/v1/localization/fr",
                                            headers: ["Authorization": "Bearer \(admin)", "Content-Type": "text/plain; charset=utf-8"],
                                            body: strings)
            #expect(merged.status == 200)
            #expect((merged.json?["overridden"] as? [String])?.sorted() == ["message.bounce.title", "message.moderation.alert.title"])

            // Refused changes change nothing.
            let broken = try client.request("PUT", "/v1/localization/fr", headers: ["Authorization": "Bearer \(admin)", "Content-Type": "text/plain"],
                                            body: "\"message.actions.flag\" = \"Signaler\";\n\"message.actions.edit\" = \"Modifier\"\n")
            #expect(broken.status == 400)
            #expect(broken.json?["code"] as? String == "invalid_strings")
            #expect(broken.json?["line"] as? Int == 3)
            #expect(broken.json?["column"] as? Int == 1)
            let wrongPlaceholders = try client.request("PUT", "/v1/localization/fr", headers: asAdmin,
                                                       body: #"{"strings":{"message.actions.flag":"Signaler","error.forbidden.detail":"Non."}}"#)
            #expect(wrongPlaceholders.status == 400)
            #expect(wrongPlaceholders.json?["keys"] as? [String] == ["error.forbidden.detail"])
            let unknown = try client.request("PUT", "/v1/localization/fr", headers: asAdmin, body: #"{"strings":{"no.such.key":"x"}}"#)
            #expect(unknown.status == 400)
            let current = try client.request("GET", "/v1/localization/fr", headers: asAdmin)
            #expect((current.json?["overridden"] as? [String])?.contains("message.actions.flag") == false)

            let notAdmin = try client.request("PUT", "/v1/localization/fr", headers: ["Authorization": "Bearer \(user)", "Content-Type": "application/json"],
                                              body: #"{"strings":{"message.bounce.title":"x"}}"#)
            #expect(notAdmin.status == 403)

            #expect(service.stop() == 0, "\(service.outputTail)")
            service = try ServiceProcess(arguments: ["--data-dir", data])
            client = try service.client()
            #expect(try alert(client) == "Vraiment ?", "overrides survive a restart")

            let deleted = try client.request("DELETE", "/v1/localization/fr/message.moderation.alert.title", headers: asAdmin)
            #expect(deleted.status == 204)
            #expect(try alert(client) != "Vraiment ?")
            #expect(try client.request("DELETE", "/v1/localization/fr/message.moderation.alert.title", headers: asAdmin).status == 404)
        }
    }

    @Test func stringsFilesOverrideFromADirectory() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let user = try Self.token(data, role: "user")
            let admin = try Self.token(data, role: "admin")
            try FileManager.default.createDirectory(atPath: directory.path("l10n/fr.lproj"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory.path("l10n/pt_BR.lproj"), withIntermediateDirectories: true)
            // UTF-16 with a byte-order mark, as Xcode writes them.
            let french = "\"message.moderation.alert.resend\" = \"Envoyer quand même\";\n\"message.actions.flag\" = \"Signaler (fichier)\";\n"
            let utf16: [UInt8] = [0xFF, 0xFE] + Array(french.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            try Data(utf16).write(to: directory.url.appendingPathComponent("l10n/fr.lproj/Localizable.strings"))
            try directory.write("l10n/pt_BR.lproj/Localizable.strings", "\"message.bounce.title\" = \"Mensagem bloqueada\";")
            let service = try ServiceProcess(arguments: ["--data-dir", data, "--localization-dir", directory.path("l10n")])
            let client = try service.client()
            let read = { (locale: String) throws -> [String: String] in
                let response = try client.request("GET", "/v1/localization?locale=\(locale)", headers: ["Authorization": "Bearer \(user)"])
                return response.json?["strings"] as? [String: String] ?? [:]
            }
            #expect(try read("fr")["message.moderation.alert.resend"] == "Envoyer quand même")
            #expect(try read("pt-BR")["message.bounce.title"] == "Mensagem bloqueada")
            // The API wins over a file.
            _ = try client.request("PUT", "/v1/localization/fr", headers: ["Authorization": "Bearer \(admin)", "Content-Type": "application/json"],
                                   body: #"{"strings":{"message.actions.flag":"Signaler (API)"}}"#)
            #expect(try read("fr")["message.actions.flag"] == "Signaler (API)")

            try directory.write("l10n/fr.lproj/Localizable.strings", "\"a\" = \"b\"\n\"c\" = \"d\";")
            let refused = try ServiceProcess.run(["serve", "--port", "0", "--data-dir", data, "--localization-dir", directory.path("l10n")])
            #expect(refused.status == 1)
            #expect(refused.output.contains("fr.lproj/Localizable.strings: line 2, column 1"))
        }
    }

    /// An app's own `Localizable.strings`, as translators hand it over: Bouncer's keys among a few
    /// hundred of the app's, with Xcode's comments. Bouncer takes its keys and says which it left.
    static func appStringsFile(bouncerStrings: [String: String], appKeys: Int) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n") + "\""
        }
        var file = "/* \n  Localizable.strings\n  ChatApp\n*/\n\n"
        for (index, key) in bouncerStrings.keys.sorted().enumerated() {
            file += "/* Bouncer text \(index) */\n\(quoted(key)) = \(quoted("« " + bouncerStrings[key]! + " »"));\n\n"
        }
        for index in 0..<appKeys {
            file += "// The app's own text\n\(quoted("chat.screen\(index / 20).label\(index)")) = \(quoted("App text \(index) with %@"));\n"
        }
        return file
    }

    @Test func anAppsWholeStringsFileIsTakenForTheKeysBouncerUses() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let admin = try Self.token(data, role: "admin")
            let service = try ServiceProcess(arguments: ["--data-dir", data])
            let client = try service.client()
            let auth = ["Authorization": "Bearer \(admin)"]
            let english = try #require(try client.request("GET", "/v1/localization/en", headers: auth).json?["strings"] as? [String: String])
            let file = Self.appStringsFile(bouncerStrings: english, appKeys: 260)

            let put = try client.request("PUT", "/v1/localization/fr", headers: auth.merging(["Content-Type": "text/plain; charset=utf-8"]) { $1 },
                                         body: file)
            #expect(put.status == 200)
            let ignored = try #require(put.json?["ignored"] as? [String])
            #expect(ignored.count == 260 && ignored.allSatisfy { $0.hasPrefix("chat.screen") })
            let applied = try #require(put.json?["strings"] as? [String: String])
            #expect(applied["message.moderation.alert.title"] == "« Are you sure? »")
            #expect((put.json?["overridden"] as? [String])?.count == english.count)
            // In JSON an unknown key is still an error, and nothing of the body is applied.
            let json = try client.request("PUT", "/v1/localization/de", headers: auth.merging(["Content-Type": "application/json"]) { $1 },
                                          body: #"{"strings":{"chat.screen0.label0":"x","message.bounce.title":"y"}}"#)
            #expect(json.status == 400)
            let onlyApp = try client.request("PUT", "/v1/localization/de", headers: auth.merging(["Content-Type": "text/plain"]) { $1 },
                                             body: #""chat.only" = "x";"#)
            #expect(onlyApp.status == 400)

            // The same file in --localization-dir: one line a file, not one a key.
            for locale in ["fr", "de"] {
                try FileManager.default.createDirectory(atPath: directory.path("l10n/\(locale).lproj"), withIntermediateDirectories: true)
                try directory.write("l10n/\(locale).lproj/Localizable.strings", file)
            }
            let withFiles = try ServiceProcess(arguments: ["--data-dir", directory.path("other"), "--localization-dir", directory.path("l10n")])
            let lines = withFiles.lines
            #expect(lines.filter { $0.contains("keys Bouncer does not use") }.count == 2)
            #expect(lines.filter { $0.contains("\"skipped\":260") }.count == 2)
            #expect(!lines.contains { $0.contains("localization override skipped") })
            let reader = try Self.token(directory.path("other"), role: "user")
            let german = try withFiles.client().request("GET", "/v1/localization?locale=de&keys=message.bounce.title",
                                                        headers: ["Authorization": "Bearer \(reader)"])
            #expect((german.json?["strings"] as? [String: String])?["message.bounce.title"] == "« Message was bounced »")
        }
    }
}
