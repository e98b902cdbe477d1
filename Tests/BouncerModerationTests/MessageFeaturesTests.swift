import BouncerDomain
import Testing
@testable import BouncerModeration

@Suite struct MessageFeaturesTests {
    @Test("mentions are distinct @names outside words, a trailing dot left out")
    func mentions() {
        let features = MessageFeatures("hi @Ana, @bo.b and @ana again; mail x@y.com or @. then @cy.")
        #expect(features.mentions.map(\.text) == ["@Ana", "@bo.b", "@cy"])
        let first = features.mentions[0]
        #expect(first.start == 3 && first.end == 7)
        #expect(MessageFeatures("@élodie ＠x @😀").mentions.map(\.text) == ["@élodie"])
    }

    @Test("links have a scheme, start with www., or end in a common top-level domain")
    func links() {
        let text = "see (https://example.com/a?b=1), www.test.org. and shop.xyz/deal or e.g. file.txt, me@mail.com, http://"
        #expect(MessageFeatures(text).links.map(\.text) == ["https://example.com/a?b=1", "www.test.org", "shop.xyz/deal"])
        #expect(MessageFeatures("no links: 3.14, a.b, end.").links.isEmpty)
    }

    @Test("the fingerprint is the same for texts that normalize alike, and differs otherwise")
    func fingerprint() {
        #expect(MessageFeatures("JOIN MY SERVER").fingerprint == MessageFeatures("join  my server").fingerprint)
        #expect(MessageFeatures("j0in my s3rver").fingerprint == MessageFeatures("join my server").fingerprint)
        #expect(MessageFeatures("join my server").fingerprint != MessageFeatures("join your server").fingerprint)
    }

    @Test("near-duplicates have alike sketches and share a band; unrelated texts do not")
    func similarity() {
        let base = MessageFeatures("Free nitro giveaway, click the link in my bio 1")
        let variants = ["free nitro giveaway!! click the link in my bio #2", "Free nitro give-away, click the link in my bio now 3",
                        "click the link in my bio, free nitro giveaway 4"]
        for variant in variants.map({ MessageFeatures($0) }) {
            #expect(MessageFeatures.similarity(base.sketch, variant.sketch) >= MessageFeatures.similarityThreshold)
            #expect(!Set(base.bands).isDisjoint(with: variant.bands))
        }
        let unrelated = MessageFeatures("are you coming to the game on friday evening")
        #expect(MessageFeatures.similarity(base.sketch, unrelated.sketch) < MessageFeatures.similarityThreshold)
        #expect(Set(base.bands).isDisjoint(with: unrelated.bands))
        // Short texts are only ever identical.
        #expect(MessageFeatures("ok").sketch.isEmpty && MessageFeatures("ok").bands.isEmpty)
    }
}

@Suite struct VerdictMergingTests {
    static func match(_ id: String, _ action: RuleAction?, priority: Int = 0) -> Verdict.RuleMatch {
        Verdict.RuleMatch(ruleID: id, name: id, kind: .word, action: action, priority: priority,
                          matched: [MatchSpan(text: "x", start: 0, end: 1, utf16Start: 0, utf16End: 1)])
    }

    @Test("added matches take part in the verdict: the strongest action decides, and a mask stands only while its rule does")
    func adding() {
        let masked = Verdict(action: .maskFlag, rules: [Self.match("mask", .maskFlag)], maskedText: "*")
        let stronger = masked.adding(rules: [Self.match("flood", .bounce)], observed: [Self.match("watch", .remove)])
        #expect(stronger.action == .bounce)
        #expect(stronger.rules.map(\.ruleID) == ["flood", "mask"])
        #expect(stronger.observed.map(\.ruleID) == ["watch"])
        #expect(stronger.maskedText == nil)
        let weaker = masked.adding(rules: [Self.match("links", .flag)], observed: [])
        #expect(weaker.action == .maskFlag && weaker.maskedText == "*")
        #expect(Verdict.none.adding(rules: [], observed: [Self.match("watch", .bounce)]).action == nil)
    }
}
