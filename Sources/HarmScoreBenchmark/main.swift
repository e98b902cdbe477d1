import BouncerClassifier
import BouncerModeration
import Foundation

// `make bench`: how many 280-character texts the bundled harm-score model scores a second on one
// core (this thread alone), from the raw text (normalized as the rules see it, then scored) and
// from text normalized already (the model alone, as a send pays for it: the rules normalize the
// text once for both). Goal: at least 100,000 texts a second.
//
//   HarmScoreBenchmark [LABELLED.csv] [SECONDS]
// With a labelled file (scripts/harm-data.sh's test.csv), its texts, each cut or repeated to 280
// characters; else sentences made here.

let arguments = CommandLine.arguments.dropFirst()
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 3
let length = 280

func fitted(_ text: String) -> String {
    var scalars = String.UnicodeScalarView()
    while scalars.count < length {
        for scalar in text.unicodeScalars where scalars.count < length { scalars.append(scalar) }
        if scalars.count < length { scalars.append(" ") }
    }
    return String(scalars)
}

var sources: [String] = []
if let path = arguments.first, let data = FileManager.default.contents(atPath: path) {
    sources = try LabelledData.read([UInt8](data)).map(\.text).filter { !$0.isEmpty }.prefix(20_000).map { $0 }
}
if sources.isEmpty {
    let words = ["you", "are", "the", "meeting", "lunch", "idiot", "great", "weather", "stupid", "thanks", "see", "tomorrow", "what",
                 "a", "day", "loser", "coffee", "project", "fucking", "nice"]
    var random = SplitMix64(seed: 7)
    sources = (0..<10_000).map { _ in (0..<60).map { _ in words.randomElement(using: &random)! }.joined(separator: " ") }
}
let texts = sources.map(fitted)
let normalized = texts.map { NormalizedText($0).words }
let model = BundledModel.model
print("harm scores, one core: \(texts.count) texts of \(length) characters (\(arguments.first.map { "from \($0)" } ?? "made here")), model \(model.info.id) with \(model.hasher.buckets) weights an attribute")

func measure(_ name: String, _ work: (Int) -> Double) {
    // A warm-up pass, then as many passes as fit in the time.
    var sink = 0.0
    for index in texts.indices { sink += work(index) }
    let started = ContinuousClock.now
    var scored = 0
    while ContinuousClock.now - started < .seconds(seconds) {
        for index in texts.indices { sink += work(index) }
        scored += texts.count
    }
    let elapsed = (ContinuousClock.now - started) / .seconds(1)
    print(String(format: "%@: %.0f texts/s (%.2f µs a text)%@", name, Double(scored) / elapsed, elapsed / Double(scored) * 1e6,
                 sink.isNaN ? " NaN" : ""))
}

measure("from the raw text (normalized, then scored)") { model.scores(texts[$0])[0] }
measure("the model alone (text normalized already, as a send scores it)") { index in
    normalized[index].withUnsafeBufferPointer { model.scores(words: $0)[0] }
}
