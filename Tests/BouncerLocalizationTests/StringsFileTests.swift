import Testing
@testable import BouncerLocalization

@Suite struct StringsFileTests {
    static func parse(_ text: String) throws(StringsFile.ParseError) -> [String: String] {
        try StringsFile.parseDictionary(Array(text.utf8))
    }

    @Test func theAppleFormat() throws {
        let file = #"""
            /* The alert's title.
               Shown when a message bounces. */
            "message.moderation.alert.title" = "Êtes-vous sûr ?";
            // A line comment
            "quotes" = "Say \"hi\" \\ bye\n\tnext";
            "unicode" = "\U00e9\u00E8 \UD83D\UDE42";
            unquoted_key = "value";
            "spaced"   =   "x"   ;
            "shorthand";
            "later" = "first";
            "later" = "second";
            "empty" = "";
            """#
        let strings = try Self.parse(file)
        #expect(strings["message.moderation.alert.title"] == "Êtes-vous sûr ?")
        #expect(strings["quotes"] == "Say \"hi\" \\ bye\n\tnext")
        #expect(strings["unicode"] == "éè 🙂")
        #expect(strings["unquoted_key"] == "value")
        #expect(strings["spaced"] == "x")
        #expect(strings["shorthand"] == "shorthand")
        #expect(strings["later"] == "second", "a later entry replaces an earlier one")
        #expect(strings["empty"] == "")
        #expect(strings.count == 8)
    }

    @Test func encodings() throws {
        let text = "\"k\" = \"日本語 🙂\";\n"
        let expected = ["k": "日本語 🙂"]
        #expect(try StringsFile.parseDictionary([0xEF, 0xBB, 0xBF] + Array(text.utf8)) == expected)
        let units = Array(text.utf16)
        let littleEndian: [UInt8] = [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian: [UInt8] = [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try StringsFile.parseDictionary(littleEndian) == expected)
        #expect(try StringsFile.parseDictionary(bigEndian) == expected)
        #expect(try StringsFile.parseDictionary([]) == [:])
    }

    @Test(arguments: [
        ("\"a\" = \"b\"", 1, 10, "`;`"),                          // missing semicolon at the end
        ("\"a\" = \"b\";\n\"c\" \"d\";", 2, 5, "`=`"),            // missing equals sign
        ("\"a\" = \"b;\n", 1, 7, "not closed"),                  // unterminated string: where it opened
        ("/* never closed\n\"a\" = \"b\";", 1, 1, "comment"),
        ("\"a\" = \"\\q\";", 1, 8, "escape"),
        ("\"a\" = \"\\U12\";", 1, 8, "four hexadecimal"),        // at the escape's backslash
        ("\"a\" = \"\\UD83D\";", 1, 8, "surrogate"),
        ("\"a\" = \"x\\UDE42\";", 1, 9, "surrogate"),
        ("\"a\" = ;", 1, 7, "value"),
        ("= \"b\";", 1, 1, "key"),
        ("\"ok\" = \"1\";\n\n   \"a\" = \"b\" junk;", 3, 14, "`;`"),
    ])
    func brokenFilesSayWhere(text: String, line: Int, column: Int, reason: String) {
        do {
            _ = try Self.parse(text)
            Issue.record("expected a parse error")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    @Test func invalidUTF8SaysWhere() {
        let bytes = Array("\"a\" = \"b\";\n\"c\" = \"".utf8) + [0xC3, 0x28] + Array("\";".utf8)
        do {
            _ = try StringsFile.parseDictionary(bytes)
            Issue.record("expected a parse error")
        } catch {
            #expect(error.line == 2 && error.column == 8)
        }
    }
}

@Suite struct PlaceholderTests {
    @Test func placeholdersAreFoundByPosition() {
        let english = FormatPlaceholders.placeholders(in: "%1$@ is not allowed here; allowed: %2$@.")
        #expect(FormatPlaceholders.placeholders(in: "Erlaubt: %2$@; %1$@ nicht.") == english)
        #expect(FormatPlaceholders.placeholders(in: "%@ and %@") == english)
        #expect(FormatPlaceholders.placeholders(in: "%@ only") != english)
        #expect(FormatPlaceholders.placeholders(in: "100%% sure, %ld left") == [.init(position: 1, conversion: "d")])
        #expect(FormatPlaceholders.placeholders(in: "%d") != FormatPlaceholders.placeholders(in: "%@"))
    }

    @Test func formatting() {
        #expect(FormatPlaceholders.format("%1$@ is not allowed; allowed: %2$@.", ["PATCH", "GET"]) == "PATCH is not allowed; allowed: GET.")
        #expect(FormatPlaceholders.format("Erlaubt: %2$@; %1$@ nicht.", ["PATCH", "GET"]) == "Erlaubt: GET; PATCH nicht.")
        #expect(FormatPlaceholders.format("in %d s (100%%)", ["3"]) == "in 3 s (100%)")
        #expect(FormatPlaceholders.format("%@ and %@", ["a"]) == "a and ")
        #expect(FormatPlaceholders.format("50% off", []) == "50% off")
    }

    @Test func overridesAreChecked() {
        #expect(OverrideRules.check(key: "message.bounce.title", value: "Rebotado") == nil)
        #expect(OverrideRules.check(key: "no.such.key", value: "x") == .unknownKey("no.such.key"))
        #expect(OverrideRules.check(key: "error.forbidden.detail", value: "Nope") != nil)
        #expect(OverrideRules.check(key: "error.forbidden.detail", value: "Role %@ needed") == nil)
        #expect(OverrideRules.check(key: "message.bounce.title", value: String(repeating: "x", count: 2001)) == .tooLong("message.bounce.title"))
    }
}
