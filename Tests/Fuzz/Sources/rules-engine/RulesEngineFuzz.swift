// libFuzzer target: the rules engine, compile and check. The input is read as a small program: a
// rule set from a grammar, then a text. Beyond "does not crash" (vectorscan included), every span a
// verdict reports is a well-formed range of the original: scalar offsets inside it, UTF-16 offsets
// that agree with them, the span's text the original's characters there, and a masked text as many
// characters long as the original.
//
// A rule is in observe mode when its index and its action byte add up to a multiple of 5: no
// observed rule may decide, nor an enforced one be only observed.
//
// Layout (every byte read past the end is 0, so any input is a program):
//   1 byte       rule count, 1 + b % 12; the set's inflections setting, off when (b / 12) is odd
//   per rule     kind (b % 16: 0-3 word, 4-5 phrase, 6-7 allow, 8-14 regex from the grammar,
//                15 raw regex: the next 1-24 input bytes as they are; past 4 regexes, a word),
//                action and channels, then the kind's own bytes (see `word`, `regex`; a word's
//                last byte says where its `*` are and its own inflections setting)
//   1 byte       the channel checked (nil, or one the rules' channel globs may match)
//   1 byte       text mode (b % 8): 0 the rest of the input as UTF-8; 1 a piece once;
//                2 a piece repeated to 0-6,000 characters; 3 to 255-6,000; 4-7 to 255-1,020
//                (long enough for anything that differs past 255 bytes, and cheaper: a check
//                costs the number of matches times the length of the text)
//   piece        1-24 tokens (ASCII letters, digits, punctuation, é, ß, Cyrillic, emoji, ZWJ,
//                combining marks...; a token byte >= 224 is a rule's own sample text)
//   rest         appended to the text as UTF-8; the text is cut at 6,000 characters
// With RULES_ENGINE_FUZZ_PRINT=1 in the environment, each input's rules, channel and text are
// printed to stderr: `SWIFT_BACKTRACE=enable=no RULES_ENGINE_FUZZ_PRINT=1 .build/fuzz/rules-engine
// <file>` shows what a crash input was (without SWIFT_BACKTRACE=enable=no, Swift's backtracer
// waits on a crash for a while).

import BouncerDomain
import BouncerModeration
import Glibc

private struct Program {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func byte() -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func number(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + byte() % (range.count)
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[byte() % choices.count] }

    mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        let end = min(bytes.count, position + count)
        defer { position = end }
        return UnsafeBufferPointer(rebasing: bytes[min(position, end)..<end])
    }

    mutating func rest() -> UnsafeBufferPointer<UInt8> { take(bytes.count - position) }
}

/// Letters of word rules: mostly a few ASCII ones, so that rules and texts meet often.
private let wordLetters = ["a", "b", "c", "d", "e", "x", "y", "z", "o", "s", "t", "A", "X", "é", "ß", "ж", "i", "n", "g", "r"]
/// Letters of regex literals (none is special to the regex syntax).
private let regexLetters = ["a", "b", "c", "x", "y", "z"]

private func word(_ program: inout Program) -> String {
    (0..<program.number(1...8)).map { _ in program.pick(wordLetters) }.joined()
}

private func literal(_ program: inout Program) -> String {
    (0..<program.number(1...3)).map { _ in program.pick(regexLetters) }.joined()
}

/// One piece of a regex and a text it matches (the sample goes into texts, so that rules match).
private func regexPiece(_ program: inout Program) -> (pattern: String, sample: String) {
    switch program.byte() % 18 {
    case 0:
        let text = literal(&program)
        return (text, text)
    case 1:  // (x|xx)*y
        let x = literal(&program), y = literal(&program)
        return ("(\(x)|\(x)\(x))*\(y)", x + x + x + y)
    case 2:  // (ab|abab)+c, (ab|c)+x
        let x = literal(&program), y = program.byte() % 2 == 0 ? literal(&program) + literal(&program) : literal(&program)
        let z = literal(&program)
        return ("(\(x)|\(y))+\(z)", x + y + z)
    case 3: return ("[a-z]+", "abc")
    case 4:
        let low = program.number(0...4), high = low + program.number(0...4)
        return ("[a-e]{\(low),\(high)}", String(repeating: "d", count: high))
    case 5: return ("\\w+", "w0rd")
    case 6:
        let low = program.number(1...4), high = low + program.number(0...4)
        return ("\\d{\(low),\(high)}", String(repeating: "7", count: low))
    case 7: return ("\\b", " ")
    case 8: return (".*", "any thing")
    case 9: return (".+?", "é")
    case 10: return (".", "-")
    case 11:
        let letter = program.pick(regexLetters)
        let low = program.number(0...3), high = low + program.number(1...5)
        return ("\(letter){\(low),\(high)}", String(repeating: letter, count: high))
    case 12: return ("\\s+", "  ")
    case 13: return ("[^ ]+", "x!y")
    case 14:
        let text = program.pick(["é", "ж", "ß", "straße", "привет", "😀"])
        return (text, text)
    case 15: return ("\\W", "@")
    case 16:
        let x = literal(&program), y = literal(&program)
        return ("(?:\(x)|\(y))?", y)
    default:
        let x = literal(&program)
        return ("(\(x))+", x + x)
    }
}

private func regex(_ program: inout Program) -> (pattern: String, sample: String) {
    var pattern = "", sample = ""
    for _ in 0..<program.number(1...4) {
        let piece = regexPiece(&program)
        pattern += piece.pattern
        sample += piece.sample
    }
    let anchors = program.byte()
    if anchors & 1 != 0 { pattern = "^" + pattern }
    if anchors & 2 != 0 { pattern += "$" }
    if anchors & 4 != 0 {  // a second branch
        let other = regexPiece(&program)
        pattern = "\(pattern)|\(other.pattern)"
    }
    return (pattern, sample)
}

/// A raw regex from the input: short, and without counted repeats large enough to make
/// compiling slow (`(a{99}){99}`): the grammar is for the engine, not vectorscan's compiler.
private func rawRegex(_ program: inout Program) -> String? {
    let pattern = String(decoding: program.take(program.number(1...24)), as: UTF8.self)
    var digits = 0, braces = 0
    for scalar in pattern.unicodeScalars {
        digits = ("0"..."9").contains(scalar) ? digits + 1 : 0
        if scalar == "{" { braces += 1 }
        if digits > 2 || braces > 1 { return nil }
    }
    return pattern
}

private let maxRegexes = 4

private let channelChoices: [[String]] = [["*"], ["*"], ["*"], ["*"], ["room:*"], ["dm:*"], ["room:1", "dm:*"], ["lobby"]]
private let checkedChannels: [String?] = [nil, "room:1", "dm:2", "lobby"]

private func rules(_ program: inout Program) -> (rules: [RuleDefinition], inflections: Bool, samples: [String]) {
    var rules: [RuleDefinition] = []
    var samples: [String] = []
    var regexes = 0
    let countByte = program.byte()
    for index in 0..<(1 + countByte % 12) {
        var kindByte = program.byte() % 16
        // Compiling regexes is most of the cost of a new rule set (milliseconds each).
        if kindByte >= 8 {
            if regexes == maxRegexes { kindByte = 0 } else { regexes += 1 }
        }
        let actionByte = program.byte()
        let action = RuleAction.allCases[actionByte % RuleAction.allCases.count]
        let enabled = (actionByte / 7) % 16 != 0
        let channels = program.pick(channelChoices)
        let kind: RuleKind, pattern: String
        var inflections: Bool?
        switch kindByte {
        case 0...3, 6...7:
            let core = word(&program)
            let wordByte = program.byte()
            let stars = wordByte % 4
            inflections = [nil, true, false][(wordByte / 4) % 3]
            kind = kindByte <= 3 ? .word : .allow
            pattern = (stars & 1 != 0 ? "*" : "") + core + (stars & 2 != 0 ? "*" : "")
            samples.append(core)
        case 4...5:
            let words = (0..<program.number(2...3)).map { _ in word(&program) }
            kind = .phrase
            pattern = words.joined(separator: " ")
            samples.append(pattern)
        case 8...14:
            let generated = regex(&program)
            kind = .regex
            pattern = generated.pattern
            samples.append(generated.sample)
        default:
            guard let raw = rawRegex(&program) else { continue }
            kind = .regex
            pattern = raw
        }
        rules.append(RuleDefinition(id: "r\(index)", name: "rule \(index)", kind: kind, pattern: pattern,
                                    action: kind == .allow ? nil : action, channels: channels, enabled: enabled,
                                    priority: actionByte % 3, inflections: inflections,
                                    mode: (index + actionByte) % 5 == 0 ? .observe : .enforce))
    }
    return (rules, (countByte / 12) % 2 == 0, samples)
}

/// Tokens of texts: ASCII letters (the rules' ones most), digits, spaces, punctuation, and
/// characters the normalizer folds or drops.
private let tokens: [String] = [
    "a", "b", "c", "d", "e", "x", "y", "z", "o", "s", "t", "A", "B", "X", "Y", "Z",
    "0", "1", "3", "4", "7", "42", " ", " ", "  ", "\n", "\t", ".", ",", "!", "?", "-",
    "_", "@", "*", "'", "/", ":", "é", "É", "ß", "ẞ", "ж", "Ж", "а", "р", "у", "привет",
    "😀", "👋🏽", "👨\u{200D}👩\u{200D}👧", "\u{200D}", "\u{200B}", "\u{FEFF}", "e\u{0301}", "\u{0301}", "ﬁ", "Ｐ",
    "İ", "ǅ", "Å", "𝓯", "ŉ", "\r\n", "\u{0000}", "ab", "xy", "aab", "abab",
    // Markup and references the words form reads through, inflections, look-alikes.
    "<b>", "</b>", "<br>", "<i>", "<x>", "&amp;", "&#105;", "&#x73;", "&shy;", "&nbsp;", "&", "<", ";",
    "ing", "es", "ed", "er", "i", "n", "g", "r", "|_|", "$", "ᴀ", "ɪ",
]

private let maxCharacters = 6000

private let printing = getenv("RULES_ENGINE_FUZZ_PRINT").map { String(cString: $0) == "1" } ?? false

/// To stderr, unbuffered: an input that crashes has shown what it was first.
private func show(_ line: String) {
    var line = line + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

private func text(_ program: inout Program, samples: [String]) -> String {
    let mode = program.byte() % 8
    if mode == 0 {
        return String(String(decoding: program.rest(), as: UTF8.self).unicodeScalars.prefix(maxCharacters))
    }
    var piece = ""
    for _ in 0..<program.number(1...24) {
        let token = program.byte()
        piece += token >= 224 && !samples.isEmpty ? samples[(token - 224) % samples.count] : tokens[token % tokens.count]
    }
    let length: Int
    switch mode {
    case 1: length = piece.unicodeScalars.count
    case 2: length = (program.byte() << 8 | program.byte()) % (maxCharacters + 1)
    case 3: length = 255 + (program.byte() << 8 | program.byte()) % (maxCharacters - 254)
    default: length = 255 + program.byte() * 3
    }
    var scalars = String.UnicodeScalarView()
    let pieceScalars = Array(piece.unicodeScalars)
    while scalars.count < length && !pieceScalars.isEmpty {
        scalars.append(contentsOf: pieceScalars.prefix(length - scalars.count))
    }
    let tail = String(decoding: program.rest(), as: UTF8.self).unicodeScalars
    scalars.append(contentsOf: tail.prefix(max(0, maxCharacters - scalars.count)))
    return String(scalars)
}

/// Compiled sets by their rules, so that inputs which change only the text skip compiling.
nonisolated(unsafe) private var compiled: [String: CompiledRuleSet?] = [:]

/// The rule set, less the rules the engine refuses (nil when it refuses them all).
private func compile(_ rules: [RuleDefinition], inflections: Bool) -> CompiledRuleSet? {
    let key = "\(inflections)\u{2}" + rules.map {
        "\($0.kind)\u{1}\($0.pattern)\u{1}\($0.action?.rawValue ?? "")\u{1}\($0.channels)\u{1}\($0.enabled)\u{1}\($0.priority)\u{1}\($0.inflections.map { "\($0)" } ?? "")"
    }.joined(separator: "\u{2}")
    if let known = compiled[key] { return known }
    var remaining = rules
    var result: CompiledRuleSet?
    while !remaining.isEmpty {
        do {
            result = try CompiledRuleSet.compile(remaining, inflections: inflections)
            break
        } catch {
            precondition(error.index >= 0 && error.index < remaining.count && remaining[error.index].id == error.ruleID,
                         "refusal names rule \(error.index) (\(error.ruleID)) of \(remaining.count)")
            remaining.remove(at: error.index)
        }
    }
    if compiled.count >= 64 { compiled.removeAll() }
    compiled[key] = .some(result)
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRulesEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var program = Program(bytes: UnsafeBufferPointer(start: data, count: size))
    let (ruleList, inflections, samples) = rules(&program)
    let channel = checkedChannels[program.byte() % checkedChannels.count]
    let text = text(&program, samples: samples)
    if printing {
        for rule in ruleList {
            show("rule \(rule.id) \(rule.kind) \(rule.action?.rawValue ?? "-") channels \(rule.channels) enabled \(rule.enabled) "
                 + "inflections \(rule.inflections.map { "\($0)" } ?? "-"): \(rule.pattern.debugDescription)")
        }
        show("rule set inflections \(inflections)")
        show("channel \(channel ?? "nil"), text of \(text.unicodeScalars.count) characters, \(text.utf8.count) bytes: \(String(text.prefix(200)).debugDescription)")
    }
    guard let ruleSet = compile(ruleList, inflections: inflections) else { return 0 }

    let verdict = ruleSet.check(text, channel: channel)
    if printing {
        show("compiled \(ruleSet.ruleCount) rules; verdict \(verdict.action?.rawValue ?? "none"): "
              + verdict.rules.map { "\($0.ruleID) \($0.matched.map { "\($0.start)..<\($0.end) \($0.text.debugDescription)" }.prefix(4))" }.joined(separator: ", "))
    }

    let scalars = Array(text.unicodeScalars)
    var utf16Offsets = [0]  // of each scalar, and of the end
    utf16Offsets.reserveCapacity(scalars.count + 1)
    for scalar in scalars { utf16Offsets.append(utf16Offsets.last! + scalar.utf16.count) }
    let utf16Count = text.utf16.count
    precondition(utf16Offsets.last! == utf16Count)
    precondition(verdict.action == verdict.rules.first?.action)
    let modes = Dictionary(ruleList.map { ($0.id, $0.mode) }, uniquingKeysWith: { first, _ in first })
    precondition(verdict.rules.allSatisfy { modes[$0.ruleID] == .enforce }, "an observed rule decides")
    precondition(verdict.observed.allSatisfy { modes[$0.ruleID] == .observe }, "an enforced rule only observed")
    for match in verdict.rules + verdict.observed where match.kind != .allow {
        precondition(!match.matched.isEmpty && match.kind != .allow)
        for span in match.matched {
            precondition(0 <= span.start && span.start < span.end && span.end <= scalars.count,
                         "rule \(match.ruleID) span \(span.start)..<\(span.end) of \(scalars.count) characters")
            precondition(0 <= span.utf16Start && span.utf16Start < span.utf16End && span.utf16End <= utf16Count,
                         "rule \(match.ruleID) UTF-16 span \(span.utf16Start)..<\(span.utf16End) of \(utf16Count)")
            precondition(span.utf16Start == utf16Offsets[span.start] && span.utf16End == utf16Offsets[span.end],
                         "rule \(match.ruleID) UTF-16 span \(span.utf16Start)..<\(span.utf16End) is not characters \(span.start)..<\(span.end)")
            precondition(span.text.unicodeScalars.elementsEqual(scalars[span.start..<span.end]),
                         "rule \(match.ruleID) span \(span.start)..<\(span.end) has text other than the original's there")
        }
    }
    if let masked = verdict.maskedText {
        precondition(verdict.action == .maskFlag)
        precondition(masked.unicodeScalars.count == scalars.count,
                     "masked text has \(masked.unicodeScalars.count) characters, the original \(scalars.count)")
    } else {
        precondition(verdict.action != .maskFlag)
    }
    return 0
}
