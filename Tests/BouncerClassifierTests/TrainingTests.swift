import BouncerClassifier
import BouncerModeration
import Foundation
import Testing

/// A small labelled set made here: texts built from a list of insults (label 1) and of ordinary
/// words (label 0), so what the model must learn is known.
enum SyntheticData {
    static let insults = ["idiot", "moron", "loser", "scum", "trash", "garbage", "pathetic", "stupid", "dumb", "clown"]
    static let ordinary = ["meeting", "lunch", "weather", "tomorrow", "project", "thanks", "coffee", "weekend", "train", "music",
                           "window", "garden", "dinner", "photo", "office"]

    static func texts(count: Int, seed: UInt64) -> [LabelledText] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let toxic = index % 3 == 0
            var words = (0..<6).map { _ in ordinary.randomElement(using: &random)! }
            if toxic { words[Int.random(in: 0..<6, using: &random)] = "you " + insults.randomElement(using: &random)! }
            return LabelledText(text: words.joined(separator: " "), label: toxic)
        }
    }
}

@Suite struct TrainingTests {
    func trained(_ texts: [LabelledText], options: TrainingOptions = TrainingOptions(), base: HarmModel? = nil) throws -> HarmModel {
        let results = try Trainer(options: options).train(ModelTraining.examples(texts), base: base)
        let info = ModelInfo(id: "test", languages: ["en"], created_at: "2026-12-08T00:00:00Z", examples: texts.count, sources: [],
                             command: "test", evaluation: [:])
        return ModelTraining.model(results, base: base, hasher: options.hasher, info: info)
    }

    static var smallOptions: TrainingOptions {
        var options = TrainingOptions()
        options.hasher = FeatureHasher(bits: 14)
        return options
    }

    @Test func learnsWhatSeparatesTheLabelsAndMeasuresItOnHeldOutTexts() throws {
        let model = try trained(SyntheticData.texts(count: 3000, seed: 1), options: Self.smallOptions)
        let evaluation = try #require(model.info.evaluation["toxicity"])
        #expect(evaluation.auc > 0.98)
        #expect(evaluation.held_out == 300)
        #expect(evaluation.precision > 0.9 && evaluation.recall > 0.9)
        // "you" comes only with an insult in this data: the ordinary words alone score low.
        #expect(model.scores("lunch tomorrow with coffee")[0] < 0.2)
        #expect(model.scores("you idiot")[0] > 0.8)
    }

    @Test func seesThroughDisguisesAsTheRulesDo() throws {
        let model = try trained(SyntheticData.texts(count: 3000, seed: 2), options: Self.smallOptions)
        let plain = model.scores("lunch you idiot")[0]
        for disguised in ["lunch you i d i o t", "lunch you 1d10t", "lunch you IDIOOOOT", "lunch you ídíót"] {
            #expect(abs(model.scores(disguised)[0] - plain) < 0.02, "\(disguised)")
        }
    }

    @Test func theSameDataAndSeedMakeTheSameModel() throws {
        let texts = SyntheticData.texts(count: 500, seed: 3)
        let first = ModelFile.encode(try trained(texts, options: Self.smallOptions))
        let second = ModelFile.encode(try trained(texts, options: Self.smallOptions))
        #expect(first == second)
    }

    @Test func aBaseModelsOtherAttributesAreKeptAndItsWeightsAreTheStart() throws {
        var other = SyntheticData.texts(count: 600, seed: 4)
        for index in other.indices { other[index].attribute = "insult" }
        let base = try trained(other, options: Self.smallOptions)
        let tuned = try trained(SyntheticData.texts(count: 600, seed: 5), options: Self.smallOptions, base: base)
        #expect(tuned.attributes == ["insult", "toxicity"])
        #expect(tuned.scores("you moron") == [base.scores("you moron")[0], tuned.scores("you moron")[1]])
    }

    @Test func refusesDataItCannotLearnFrom() throws {
        let onlyClean = (0..<100).map { LabelledText(text: "hello \($0)", label: false) }
        #expect(throws: TrainingError.oneLabelOnly(attribute: "toxicity", label: true)) {
            try Trainer(options: Self.smallOptions).train(ModelTraining.examples(onlyClean), base: nil)
        }
        #expect(throws: TrainingError.tooFewExamples(attribute: "toxicity", count: 5)) {
            try Trainer(options: Self.smallOptions).train(ModelTraining.examples(Array(SyntheticData.texts(count: 5, seed: 1))), base: nil)
        }
    }

    @Test func stopsAtItsDeadlineAndWhenCancelled() throws {
        var options = Self.smallOptions
        options.deadline = .now - .seconds(1)
        let examples = ModelTraining.examples(SyntheticData.texts(count: 2000, seed: 6))
        #expect(throws: TrainingError.timeLimit) { try Trainer(options: options).train(examples, base: nil) }
        #expect(throws: TrainingError.cancelled) {
            try Trainer(options: Self.smallOptions).train(examples, base: nil, isCancelled: { true })
        }
    }

    @Test func aModelFileReadsBackWithTheSameScores() throws {
        let model = try trained(SyntheticData.texts(count: 1000, seed: 7), options: Self.smallOptions)
        let read = try ModelFile.decode(ModelFile.encode(model))
        #expect(read.info == model.info)
        #expect(read.attributes == model.attributes)
        for text in ["you idiot", "coffee tomorrow", "", "🙂"] {
            #expect(abs(read.scores(text)[0] - model.scores(text)[0]) < 0.001)
        }
    }

    @Test func aDamagedModelFileIsRefusedNeverCrashes() throws {
        let bytes = ModelFile.encode(try trained(SyntheticData.texts(count: 300, seed: 8), options: Self.smallOptions))
        var random = SplitMix64(seed: 9)
        for cut in [0, 5, 16, 40, bytes.count / 2, bytes.count - 1] {
            #expect(throws: ModelFile.Unreadable.self) { try ModelFile.decode(Array(bytes.prefix(cut))) }
        }
        #expect(throws: ModelFile.Unreadable.self) { try ModelFile.decode(bytes + [0]) }
        for _ in 0..<200 {
            var damaged = Array(bytes.prefix(600))
            for _ in 0..<4 { damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            _ = try? ModelFile.decode(damaged + Array(bytes.dropFirst(600)))
        }
    }
}

@Suite struct EvaluationTests {
    @Test func aucCountsOrderedPairsAndSharesTies() {
        #expect(Evaluation.auc(scores: [0.1, 0.2, 0.8, 0.9], labels: [false, false, true, true]) == 1)
        #expect(Evaluation.auc(scores: [0.9, 0.8, 0.2, 0.1], labels: [false, false, true, true]) == 0)
        #expect(Evaluation.auc(scores: [0.5, 0.5, 0.5, 0.5], labels: [false, true, false, true]) == 0.5)
        // One positive above one of two negatives: 1 pair of 2 in order.
        #expect(Evaluation.auc(scores: [0.3, 0.6, 0.5], labels: [false, false, true]) == 0.5)
        #expect(Evaluation.auc(scores: [0.3], labels: [true]) == 0.5)
    }

    @Test func precisionRecallAndF1AtTheThreshold() {
        let evaluation = Evaluation(scores: [0.9, 0.7, 0.6, 0.2, 0.1], labels: [true, false, true, true, false])
        #expect(evaluation.precision == 2.0 / 3)
        #expect(evaluation.recall == 2.0 / 3)
        #expect(abs(evaluation.f1 - 2.0 / 3) < 1e-12)
        #expect(evaluation.held_out == 5)
    }

    @Test func calibrationMapsRawScoresToTheirObservedShare() {
        // Raw score 1: three in four labelled 1; raw score -1: one in four.
        let raw = Array(repeating: 1.0, count: 400) + Array(repeating: -1.0, count: 400)
        let labels = (0..<400).map { $0 % 4 != 0 } + (0..<400).map { $0 % 4 == 0 }
        let calibration = Calibration.fit(raw: raw, labels: labels)
        #expect(abs(calibration.probability(1) - 0.75) < 0.01)
        #expect(abs(calibration.probability(-1) - 0.25) < 0.01)
    }
}
