import BouncerDomain
import Testing
@testable import BouncerModeration

/// Evasions that other filters catch, each caught by a plain `word` rule for the base word, and
/// the innocent texts that must stay innocent beside them.
@Suite struct EvasionTests {
    static let words = ["fuck", "shit", "ass", "rape", "bitch", "cock", "cunt", "penis", "anal", "spic", "bullshit", "asshole",
                        "hure", "cabrón", "follar", "wichsen"]

    static func ruleSet(inflections: Bool = true, ruleInflections: Bool? = nil) -> CompiledRuleSet {
        try! CompiledRuleSet.compile(words.map {
            RuleDefinition(id: $0, name: $0, kind: .word, pattern: $0, action: .bounce, inflections: ruleInflections)
        } + [RuleDefinition(id: "scunthorpe", kind: .allow, pattern: "scunthorpe", action: nil)], inflections: inflections)
    }

    static let standard = ruleSet()

    static func matched(_ text: String, _ set: CompiledRuleSet = standard) -> [String] {
        set.check(text).rules.map(\.ruleID).sorted()
    }

    @Test(arguments: [
        // Masked letters.
        ("f*ck", "fuck"), ("f@ck", "fuck"), ("sh!t", "shit"), ("f***", "fuck"), ("f*cking", "fuck"), ("sh#t", "shit"),
        ("what the f**k", "fuck"), ("b!tch", "bitch"), ("a**", "ass"), ("c*nt", "cunt"), ("F*CK YOU", "fuck"),
        // Markup and character references inside a word.
        ("f<b>u</b>ck", "fuck"), ("a<br>ss", "ass"), ("sh&#105;t", "shit"), ("&#x73;hit", "shit"),
        ("f<span style=\"x\">u</span>ck", "fuck"), ("sh&#X69;t", "shit"),
        // Look-alikes.
        ("fu©k", "fuck"), ("ƒuck", "fuck"), ("fսck", "fuck"), ("ЅНІТ", "shit"), ("SHΙT", "shit"), ("sh¡t", "shit"),
        // Leetspeak with separators.
        ("$.H.1.7", "shit"), ("5 h 1 t", "shit"), ("f.u.c.k", "fuck"), ("b-1-t-c-h", "bitch"),
        // Inflections.
        ("fucks", "fuck"), ("fucking", "fuck"), ("fucked", "fuck"), ("fucker", "fuck"), ("shitting", "shit"),
        ("asses", "ass"), ("bitches", "bitch"), ("raped", "rape"), ("raping", "rape"), ("rapes", "rape"),
        ("FUCKING hell", "fuck"), ("sh1tting", "shit"),
        // Found by the labelled corpus (Tests/corpus).
        ("what a c.u.n.t", "cunt"), ("c|_|nt", "cunt"), ("@$$hole", "asshole"), ("bu11shit", "bullshit"),
        ("fu&shy;ck", "fuck"), ("sh<!-- -->it", "shit"), ("ʙɪᴛᴄʜ", "bitch"), ("diese Huren", "hure"),
        ("son unos cabrones", "cabrón"), ("están follando", "follar"), ("er wichst", "wichsen"), ("f&uuml;ck", "fuck"),
    ])
    func evasionIsCaught(text: String, word: String) {
        #expect(Self.matched(text).contains(word), "\(text)")
    }

    @Test(arguments: [
        "assassinate", "classic", "Scunthorpe", "Penistone", "shitake", "cocktail", "bassist", "grape", "analyse",
        "I need to mass age the data", "$5*2", "3*4=12", "it costs $5 * 2", "mail me at john.fuller@example.com",
        "a.s.s@example.com", "C#", "F#", "I code in C# and F#", "`a*b`", "run `rm -rf *.o` first", "`sh*t`",
        "assess", "assessment", "passes", "classes", "spices", "what?!", "really!!", "hello *world*", "as?",
        "x != y", "ok", "lol", "gg", "50% off", "C#m7 chord", "#hashtag", "@everyone hi", "a < b > c",
        "2 + 2 = 4", "cocktails", "grapes", "Dick Van Dyke", "mass", "the bass is loud", "€5 and ©2024",
        "a ! b", "I paid $ 5", "version 1.0.3", "<p>hello</p>", "&amp; so on", "see you@ 5",
        "take the A55 towards Chester", "room 101", "b1g deal", "<!-- a comment -->", "spices", "bullseye", "h1", "x1s",
    ])
    func innocentTextPasses(text: String) {
        #expect(Self.matched(text).isEmpty, "\(text)")
    }

    @Test func inflectionsFollowTheRuleSetUnlessTheRuleSays() {
        let off = Self.ruleSet(inflections: false)
        #expect(Self.matched("fucking", off).isEmpty)
        #expect(Self.matched("fuck", off) == ["fuck"])
        #expect(Self.matched("f*cking", off).isEmpty)
        #expect(Self.matched("fucking", Self.ruleSet(inflections: false, ruleInflections: true)) == ["fuck"])
        #expect(Self.matched("fucking", Self.ruleSet(inflections: true, ruleInflections: false)).isEmpty)
    }

    @Test func spansCoverTheWholeEvasion() throws {
        let cases: [(String, String)] = [
            ("well f*cking hell", "f*cking"), ("a sh&#105;t day", "sh&#105;t"), ("oh f<b>u</b>ck", "f<b>u</b>ck"),
            ("so shitting", "shitting"), ("$.H.1.7!", "$.H.1.7"), ("fu©k off", "fu©k"), ("&#x73;hit", "&#x73;hit"),
        ]
        for (text, expected) in cases {
            let match = try #require(Self.standard.check(text).rules.first?.matched.first, "\(text)")
            #expect(match.text == expected, "\(text)")
            let scalars = Array(text.unicodeScalars)
            #expect(String(String.UnicodeScalarView(scalars[match.start..<match.end])) == expected)
        }
    }

    @Test func maskFlagMasksTheWholeInflectedWord() {
        let set = try! CompiledRuleSet.compile([RuleDefinition(id: "f", kind: .word, pattern: "fuck", action: .maskFlag)])
        #expect(set.check("you fucking idiot").maskedText == "you ******* idiot")
        #expect(set.check("you f*cking idiot").maskedText == "you ******* idiot")
    }
}
