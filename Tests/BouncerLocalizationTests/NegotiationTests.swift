import Testing
@testable import BouncerLocalization

@Suite struct NegotiationTests {
    static let catalog = Catalog()

    static func negotiate(_ acceptLanguage: String?, query: String? = nil, catalog: Catalog = catalog) -> String {
        catalog.negotiate(queryLocale: query, acceptLanguage: acceptLanguage).tag
    }

    @Test(arguments: [
        ("de", "de"),
        ("DE", "de"),
        ("fr-CA;q=0.9, de;q=0.8", "fr"),          // truncation before the next range
        ("de;q=0.5, fr;q=0.9", "fr"),             // q-values, not order
        ("pt-BR", "pt-BR"),
        ("pt-br", "pt-BR"),
        ("pt-PT", "pt"),
        ("pt-BR-x-custom", "pt-BR"),
        ("zh-Hans-CN", "zh-Hans"),
        ("zh-hans", "zh-Hans"),
        ("zh-Hant-TW", "zh-Hans"),                // zh-Hant-TW -> zh-Hant -> zh, and a bare zh is Simplified
        ("zh-CN", "zh-Hans"),
        ("xx, ja;q=0.1", "ja"),
        ("xx-YY", "en"),
        ("*", "en"),
        ("fr;q=0, *;q=0.5", "en"),                 // q=0 means "not this one"
        ("fr;q=0, de", "de"),
        ("en-GB, de;q=0.9", "en"),
        ("", "en"),
        ("garbage!!, ko", "ko"),                  // malformed ranges are skipped
        ("de;q=2, es", "es"),                      // so is an impossible q
        ("ar-EG", "ar"),
    ])
    func acceptLanguage(header: String, expected: String) {
        #expect(Self.negotiate(header) == expected)
    }

    @Test func theQueryWinsOverTheHeader() {
        #expect(Self.negotiate("de", query: "fr") == "fr")
        #expect(Self.negotiate("de", query: "pt-BR") == "pt-BR")
        #expect(Self.negotiate("de", query: "xx") == "en", "an unknown ?locale= falls back to the default")
        #expect(Self.negotiate(nil) == "en")
    }

    @Test func theDefaultLocaleIsConfigurable() {
        let german = Catalog(defaultLocale: "de")
        #expect(Self.negotiate(nil, catalog: german) == "de")
        #expect(Self.negotiate("xx", catalog: german) == "de")
        #expect(german.negotiate(queryLocale: nil, acceptLanguage: "xx").text("message.bounce.title")
            == BundledStrings.all["de"]?["message.bounce.title"])
    }

    @Test func aHugeHeaderIsReadOnlyInPart() {
        let header = Array(repeating: "xx", count: 10_000).joined(separator: ",") + ",de"
        #expect(AcceptLanguage.parse(header).count == AcceptLanguage.maxRanges)
        #expect(Self.negotiate(header) == "en")
    }

    @Test(arguments: [
        ("EN-us", "en-US"), ("zh-hant-tw", "zh-Hant-TW"), ("sr-latn-rs", "sr-Latn-RS"), ("es-419", "es-419"),
    ])
    func tagsAreCanonicalized(tag: String, canonical: String) {
        #expect(LocaleTag.canonical(tag) == canonical)
    }

    @Test(arguments: ["", "-", "en-", "e n", "toolonglanguage", "en_US", "../etc", "en-US-" + String(repeating: "a", count: 40)])
    func badTagsAreRefused(tag: String) {
        #expect(LocaleTag.canonical(tag) == nil)
    }

    @Test func fallbacksShortenOneSubtagAtATime() {
        #expect(LocaleTag.fallbacks("zh-Hant-TW") == ["zh-Hant-TW", "zh-Hant", "zh"])
    }
}

@Suite struct FallbackOrderTests {
    static let bundled = [
        "en": ["k": "en", "only-en": "en"],
        "fr": ["k": "fr", "fr-lang": "fr"],
    ]

    @Test func everyStepOfTheLookupOrder() throws {
        var catalog = Catalog(bundled: Self.bundled)
        let canadian = try #require(catalog.choice(for: "fr-CA"))
        #expect(canadian.tag == "fr")
        #expect(canadian.text("k") == "fr")
        #expect(canadian.text("only-en") == "en", "the default locale fills what the language lacks")
        #expect(canadian.text("nobody-has-this") == "nobody-has-this", "last comes the key itself")

        catalog = Catalog(bundled: Self.bundled, apiOverrides: ["fr-CA": ["k": "fr-CA override"], "fr": ["fr-lang": "fr override"],
                                                                "en": ["only-en": "en override"]])
        let overridden = try #require(catalog.choice(for: "fr-CA"))
        #expect(overridden.tag == "fr-CA")
        #expect(overridden.text("k") == "fr-CA override", "an override for the locale itself comes first")
        #expect(overridden.text("fr-lang") == "fr override", "then the language's override, before its bundled text")
        #expect(overridden.text("only-en") == "en override", "the default locale's override beats its bundled text")
        #expect(catalog.choice(for: "fr")?.text("k") == "fr")
    }

    @Test func apiOverridesWinOverFileOverrides() {
        let catalog = Catalog(bundled: Self.bundled, fileOverrides: ["fr": ["k": "file", "fr-lang": "file"]],
                              apiOverrides: ["fr": ["k": "api"]])
        #expect(catalog.choice(for: "fr")?.text("k") == "api")
        #expect(catalog.choice(for: "fr")?.text("fr-lang") == "file")
        #expect(catalog.effectiveStrings(for: "fr")?.overridden == ["fr-lang", "k"])
    }

    @Test func localesListBundledAndOverridden() {
        let catalog = Catalog(bundled: Self.bundled, apiOverrides: ["fr": ["k": "x"], "de-AT": ["k": "y"]])
        #expect(catalog.locales == [
            Catalog.LocaleInfo(tag: "de-AT", bundled: false, overridden: true),
            Catalog.LocaleInfo(tag: "en", bundled: true, overridden: false),
            Catalog.LocaleInfo(tag: "fr", bundled: true, overridden: true),
        ])
    }
}
