import BouncerDomain
import BouncerModeration
import Foundation

// Messages a second on one core for 280-character chat messages against word and regex rules,
// side by side with a naive matcher (lower-case the text, loop over the words with `contains`).
// Deterministic: the same rules and messages every run.

struct Generator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 17
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func word(length: ClosedRange<Int>) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return String((0..<(length.lowerBound + below(length.count))).map { _ in letters[below(26)] })
    }
}

let vocabulary = """
    the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not \
    what all were we when your can said there use an each which she do how their if will up other about out many then \
    them these so some her would make like him into time has look two more write go see number no way could people my \
    than first water been call who oil its now find long down day did get come made may part hey lol ok thanks great \
    meeting tomorrow tonight weekend game match team coffee lunch dinner sounds good see you later love this photo
    """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

func message(_ generator: inout Generator, bounceWords: [String]) -> String {
    var text = ""
    let bounced = generator.below(100) < 5
    while text.count < 280 {
        if bounced && text.count > 100 && text.count < 120 {
            text += bounceWords[generator.below(bounceWords.count)] + " "
        } else {
            text += vocabulary[generator.below(vocabulary.count)] + (generator.below(8) == 0 ? ", " : " ")
        }
    }
    return String(text.prefix(280))
}

func wordRules(_ count: Int, _ generator: inout Generator) -> [RuleDefinition] {
    (0..<count).map { index in
        RuleDefinition(id: "w\(index)", kind: .word, pattern: generator.word(length: 5...10), action: .bounce)
    }
}

func regexRules(_ count: Int) -> [RuleDefinition] {
    (0..<count).map { index in
        let pattern = switch index % 5 {
        case 0: #"\b\d{3}-\d{3}-\d{\#(4 + index % 3)}\b"#
        case 1: #"buy\s+cheap\s+\w+\#(index)"#
        case 2: #"(free|cheap)\s+(pills|meds)\#(index)"#
        case 3: #"[a-z]+\#(index)@[a-z]+\.example"#
        default: #"bit\.ly/[a-z0-9]{\#(5 + index % 4)}"#
        }
        return RuleDefinition(id: "r\(index)", kind: .regex, pattern: pattern, action: .flag)
    }
}

/// Checks a second: the median of `rounds` runs, so a moment of load on the machine does not
/// decide the figure.
func medianRate(rounds: Int = 5, seconds: Double = 1, _ body: () -> Int) -> Double {
    let rates = (0..<rounds).map { _ in measure(seconds: seconds, body) }.sorted()
    return rates[rates.count / 2]
}

func measure(_ label: String = "", seconds: Double = 2, _ body: () -> Int) -> Double {
    let clock = ContinuousClock()
    var count = 0
    let started = clock.now
    while clock.now - started < .seconds(seconds) {
        count += body()
    }
    let elapsed = (clock.now - started) / .seconds(1)
    return Double(count) / elapsed
}

var generator = Generator(state: 42)
let words10k = wordRules(10_000, &generator)
let regexes = regexRules(50)
let bounceWords = words10k.prefix(100).map(\.pattern)
let messages = (0..<2000).map { _ in message(&generator, bounceWords: bounceWords) }

let clock = ContinuousClock()
let set10k = try CompiledRuleSet.compile(words10k + regexes)
print("compile 10,000 word + 50 regex rules: \(set10k.compileDuration), databases \(set10k.databaseSize / 1024) KiB")

// RULES_BENCHMARK_CHECKS=N: only N checks, for counting instructions (valgrind --tool=callgrind),
// which, unlike a rate, does not move with the machine's other load.
if let checks = ProcessInfo.processInfo.environment["RULES_BENCHMARK_CHECKS"].flatMap(Int.init) {
    var actions = 0
    for index in 0..<checks where set10k.check(messages[index % messages.count]).action != nil { actions += 1 }
    print("\(checks) checks, \(actions) with an action")
    exit(0)
}

var bounced = 0
for text in messages where set10k.check(text).action == .bounce { bounced += 1 }
print("messages bounced: \(bounced) of \(messages.count) (\(String(format: "%.1f", Double(bounced) * 100 / Double(messages.count)))%)")

var index = 0
let engineRate = medianRate {
    for _ in 0..<100 {
        _ = set10k.check(messages[index % messages.count])
        index += 1
    }
    return 100
}

// The part of a check that does not depend on the rules: folding the text and finding its words.
let normalizeRate = medianRate {
    for _ in 0..<100 {
        _ = NormalizedText(messages[index % messages.count])
        index += 1
    }
    return 100
}

let lowercasedWords = words10k.map { $0.pattern.lowercased() }
let naiveRate = measure("naive", seconds: 2) {
    let text = messages[index % messages.count].lowercased()
    index += 1
    var hit = false
    for word in lowercasedWords where text.contains(word) { hit = true }
    return hit ? 1 : 1
}

print(String(format: "engine: %.0f messages/s on one core (%.2f µs each)", engineRate, 1e6 / engineRate))
print(String(format: "  of which normalizing the text: %.2f µs", 1e6 / normalizeRate))
print(String(format: "naive:  %.0f messages/s on one core", naiveRate))
print(String(format: "engine / naive at 10,000 words: %.0fx", engineRate / naiveRate))

var small = Generator(state: 7)
let set100 = try CompiledRuleSet.compile(wordRules(100, &small))
var large = Generator(state: 7)
let started100k = clock.now
let words100k = wordRules(100_000, &large)
let set100k = try CompiledRuleSet.compile(words100k)
let compile100k = clock.now - started100k
print("compile 100,000 word rules: \(set100k.compileDuration) (with generating them: \(compile100k))")

// Alternate the two sets round by round and take each one's median.
var rates100: [Double] = []
var rates100k: [Double] = []
for _ in 0..<5 {
    rates100.append(measure(seconds: 1) {
        for _ in 0..<100 { _ = set100.check(messages[index % messages.count]); index += 1 }
        return 100
    })
    rates100k.append(measure(seconds: 1) {
        for _ in 0..<100 { _ = set100k.check(messages[index % messages.count]); index += 1 }
        return 100
    })
}
let rate100 = rates100.sorted()[2]
let rate100k = rates100k.sorted()[2]
print(String(format: "time per message: %.2f µs at 100 word rules, %.2f µs at 100,000 (ratio %.2f)",
             1e6 / rate100, 1e6 / rate100k, rate100 / rate100k))

// Rate rules: what they cost a message beside the text rules. The sketch a flood rule compares,
// the look for mentions and links, and the in-memory ledger of 200 senders' recent marks (as in
// the send benchmark: every sender past the marks a rule keeps, so each mark drops one).
// The sketch from the normalized text, which the service has already from the text rules' check.
let normalizedMessages = messages.map { NormalizedText($0) }
let likenessRate = medianRate {
    for _ in 0..<100 {
        let at = index % messages.count
        _ = MessageFeatures(messages[at], normalizedWords: normalizedMessages[at].words, parts: .likeness)
        index += 1
    }
    return 100
}
let mentionsLinksRate = medianRate {
    for _ in 0..<100 { _ = MessageFeatures(messages[index % messages.count], parts: [.mentions, .links]); index += 1 }
    return 100
}
let floodMarks = messages.map { text -> RateMark in
    let features = MessageFeatures(text, parts: .likeness)
    return RateMark(userID: "", ruleID: "flood", keys: features.bands.isEmpty ? [features.fingerprint] : features.bands, weight: 1,
                    sketch: features.sketch, at: 0, window: 60)
}
let senders = (0..<200).map { "user\($0)" }
/// A ledger record's rate with 200 senders, each past the `keep` marks the rule keeps a sender.
func ledgerRate(keep: Int) -> Double {
    let ledger = MemoryRateLedger()
    var at = 0.0
    var pick = Generator(state: 99)
    var index = 0
    return medianRate {
        for _ in 0..<100 {
            // Each sender a text picked at random, as the send benchmark's clients do.
            var mark = floodMarks[pick.below(floodMarks.count)]
            mark.userID = senders[index % senders.count]
            mark.keep = keep
            at += 0.0001
            mark.at = at
            ledger.record([mark]) { _ in }
            index += 1
        }
        return 100
    }
}
// A flood rule of threshold 20 keeps 80 marks a sender (the send benchmark's); 400 is the most any keeps.
let ledgerRate80 = ledgerRate(keep: 80)
let ledgerRate400 = ledgerRate(keep: MemoryRateLedger.maxMarksPerSender)
print(String(format: "rate rules, per message: sketch %.2f µs, mentions and links %.2f µs, ledger record %.2f µs (80 marks a sender), %.2f µs (400)",
             1e6 / likenessRate, 1e6 / mentionsLinksRate, 1e6 / ledgerRate80, 1e6 / ledgerRate400))
