import Foundation

/// One labelled text for training: its normalized words, whether it has the attribute, and how
/// much it counts (a moderator's decision may count for more than a line of the base data).
public struct TrainingExample: Sendable {
    public var words: [UInt8]
    public var label: Bool
    public var attribute: String
    public var weight: Float

    public init(words: [UInt8], label: Bool, attribute: String, weight: Float = 1) {
        self.words = words
        self.label = label
        self.attribute = attribute
        self.weight = weight
    }
}

/// How a model is trained.
public struct TrainingOptions: Sendable {
    /// Passes over the training share.
    public var epochs = 6
    /// Adagrad's step.
    public var learningRate: Float = 0.25
    /// Pull of each weight toward its starting value (zero, or the base model's weight), per
    /// update: what keeps a model trained on a few hundred decisions close to the one it started from.
    public var regularization: Float = 1e-6
    /// Share of each attribute's examples held out from training to measure the model.
    public var heldOutShare = 0.1
    /// Share held out to fit the calibration.
    public var calibrationShare = 0.1
    /// Orders the examples: the same data and seed make the same model.
    public var seed: UInt64 = 2026
    /// Training stops with `TrainingError.timeLimit` past this instant.
    public var deadline: ContinuousClock.Instant?
    public var hasher = FeatureHasher()

    public init() {}
}

public enum TrainingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An attribute has no example of one of the labels.
    case oneLabelOnly(attribute: String, label: Bool)
    case tooFewExamples(attribute: String, count: Int)
    case timeLimit
    case cancelled
    /// A weight ran off to infinity or NaN (a learning rate far too large).
    case diverged(attribute: String)

    public var description: String {
        switch self {
        case .oneLabelOnly(let attribute, let label):
            "\(attribute) has no example labelled \(label ? 0 : 1): a model needs both"
        case .tooFewExamples(let attribute, let count):
            "\(attribute) has \(count) examples; at least \(Trainer.minExamples) are needed to train and measure it"
        case .timeLimit: "training took longer than its time limit"
        case .cancelled: "training was cancelled"
        case .diverged(let attribute): "\(attribute): the training diverged (a weight is not a finite number); try a smaller learning rate"
        }
    }
}

/// Trains each attribute's head: logistic regression by Adagrad over the hashed features, from
/// zero or from a base model's weights, then calibration and evaluation on shares it did not
/// train on.
public struct Trainer: Sendable {
    public static let minExamples = 20

    public let options: TrainingOptions

    public init(options: TrainingOptions = TrainingOptions()) {
        self.options = options
    }

    /// One attribute's result.
    public struct Result: Sendable {
        public var head: HarmModel.Head
        public var evaluation: Evaluation
        /// The held-out texts' labels and the base head's scores on them (when a base head was
        /// given): what a comparison with the base model is made on.
        public var baseEvaluation: Evaluation?
        public var examples: Int
    }

    /// Trains a head for each attribute of `examples`, starting from `base`'s head of that
    /// attribute when it has one. `progress` hears of each pass; `isCancelled` is asked often.
    public func train(_ examples: [TrainingExample], base: HarmModel?, progress: (String) -> Void = { _ in },
                      isCancelled: () -> Bool = { false }) throws(TrainingError) -> [Result] {
        var byAttribute: [String: [Int]] = [:]
        for index in examples.indices { byAttribute[examples[index].attribute, default: []].append(index) }
        var results: [Result] = []
        for attribute in byAttribute.keys.sorted() {
            let indices = byAttribute[attribute]!
            let startHead = base.flatMap { $0.hasher == options.hasher ? $0.head(attribute) : nil }
            results.append(try trainHead(attribute, examples, indices, start: startHead, progress: progress, isCancelled: isCancelled))
        }
        return results
    }

    private func trainHead(_ attribute: String, _ examples: [TrainingExample], _ indices: [Int], start: HarmModel.Head?,
                           progress: (String) -> Void, isCancelled: () -> Bool) throws(TrainingError) -> Result {
        guard indices.count >= Self.minExamples else { throw .tooFewExamples(attribute: attribute, count: indices.count) }
        for label in [false, true] where !indices.contains(where: { examples[$0].label == label }) {
            throw .oneLabelOnly(attribute: attribute, label: label)
        }
        var random = SplitMix64(seed: options.seed)
        var order = indices
        order.shuffle(using: &random)
        // Each share keeps both labels when it can: the held-out share is cut from each label's own.
        let (heldOut, calibration, training) = split(order, examples)
        let hasher = options.hasher
        let prior = start?.floatWeights ?? [Float](repeating: 0, count: hasher.buckets)
        var weights = prior
        var squares = [Float](repeating: 0, count: hasher.buckets)
        var bias = start?.bias ?? 0, biasSquares: Float = 0
        let rate = options.learningRate, pull = options.regularization
        var features: [FeatureHasher.Feature] = []
        features.reserveCapacity(3 * FeatureHasher.maxBytes + 16)
        var trainingOrder = training
        for epoch in 1...max(1, options.epochs) {
            trainingOrder.shuffle(using: &random)
            var loss = 0.0
            for (position, index) in trainingOrder.enumerated() {
                if position & 1023 == 0 {
                    if isCancelled() { throw .cancelled }
                    if let deadline = options.deadline, ContinuousClock.now > deadline { throw .timeLimit }
                }
                let example = examples[index]
                features.removeAll(keepingCapacity: true)
                example.words.withUnsafeBufferPointer { words in _ = hasher.forEachFeature(words) { features.append($0) } }
                let scale = FeatureHasher.scale(count: features.count)
                var z = bias
                weights.withUnsafeBufferPointer { w in
                    for feature in features {
                        let weight = w[Int(feature & 0x7FFF_FFFF)]
                        z += (feature & 0x8000_0000 == 0 ? weight : -weight) * scale
                    }
                }
                let p = 1 / (1 + exp(-z))
                let target: Float = example.label ? 1 : 0
                loss -= Double(example.weight) * Double(example.label ? log(max(p, 1e-7)) : log(max(1 - p, 1e-7)))
                let gradient = (p - target) * example.weight
                weights.withUnsafeMutableBufferPointer { w in
                    squares.withUnsafeMutableBufferPointer { g in
                        prior.withUnsafeBufferPointer { p0 in
                            for feature in features {
                                let bucket = Int(feature & 0x7FFF_FFFF)
                                let signed = feature & 0x8000_0000 == 0 ? gradient * scale : -gradient * scale
                                let step = signed + pull * (w[bucket] - p0[bucket])
                                g[bucket] += step * step
                                w[bucket] -= rate * step / (g[bucket].squareRoot() + 1e-6)
                            }
                        }
                    }
                }
                biasSquares += gradient * gradient
                bias -= rate * gradient / (biasSquares.squareRoot() + 1e-6)
            }
            progress("\(attribute): pass \(epoch) of \(options.epochs), mean log loss \(String(format: "%.4f", loss / Double(max(1, trainingOrder.count))))")
        }
        guard weights.allSatisfy(\.isFinite), bias.isFinite else { throw .diverged(attribute: attribute) }
        let uncalibrated = HarmModel.Head(attribute: attribute, floatWeights: weights, bias: bias, calibration: Calibration())
        let model = HarmModel(hasher: hasher, heads: [uncalibrated], info: .untrained)
        func raws(_ head: HarmModel.Head, _ indices: [Int]) -> [Double] {
            indices.map { index in examples[index].words.withUnsafeBufferPointer { model.raw(words: $0, head: head) } }
        }
        let fitted = Calibration.fit(raw: raws(uncalibrated, calibration), labels: calibration.map { examples[$0].label })
        let head = HarmModel.Head(attribute: attribute, weights: uncalibrated.weights, scale: uncalibrated.scale, bias: bias, calibration: fitted)
        let labels = heldOut.map { examples[$0].label }
        let evaluation = Evaluation(scores: raws(uncalibrated, heldOut).map(fitted.probability), labels: labels)
        let baseEvaluation = start.map { base in Evaluation(scores: raws(base, heldOut).map(base.calibration.probability), labels: labels) }
        progress("\(attribute): held-out AUC \(String(format: "%.4f", evaluation.auc)) on \(heldOut.count) texts")
        return Result(head: head, evaluation: evaluation, baseEvaluation: baseEvaluation, examples: indices.count)
    }

    /// The held-out, calibration and training shares of `order`, each label split in the same
    /// proportions, so a rare label is in every share.
    private func split(_ order: [Int], _ examples: [TrainingExample]) -> (heldOut: [Int], calibration: [Int], training: [Int]) {
        var heldOut: [Int] = [], calibration: [Int] = [], training: [Int] = []
        for label in [false, true] {
            let ofLabel = order.filter { examples[$0].label == label }
            let held = max(1, Int((Double(ofLabel.count) * options.heldOutShare).rounded()))
            let calibrated = max(1, Int((Double(ofLabel.count) * options.calibrationShare).rounded()))
            heldOut += ofLabel.prefix(held)
            calibration += ofLabel.dropFirst(held).prefix(calibrated)
            training += ofLabel.dropFirst(held + calibrated)
        }
        return (heldOut, calibration, training)
    }
}

extension ModelInfo {
    static let untrained = ModelInfo(id: "", languages: [], created_at: "", examples: 0, sources: [], command: "", evaluation: [:])
}

/// A small, fast generator whose sequence a seed fixes (the standard library's is not seedable).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Calibration {
    /// Platt's fit: the `a` and `b` that make `probability(raw)` best predict `labels` (least log
    /// loss, with Platt's smoothed targets so a perfectly separated set does not run off to
    /// infinity), by Newton's method.
    public static func fit(raw: [Double], labels: [Bool]) -> Calibration {
        let positives = Double(labels.count { $0 }), negatives = Double(labels.count) - positives
        guard positives > 0, negatives > 0 else { return Calibration() }
        let high = (positives + 1) / (positives + 2), low = 1 / (negatives + 2)
        var a = 1.0, b = 0.0
        for _ in 0..<50 {
            var ga = 0.0, gb = 0.0, haa = 1e-9, hab = 0.0, hbb = 1e-9
            for (x, label) in zip(raw, labels) {
                let p = 1 / (1 + exp(-(a * x + b)))
                let t = label ? high : low
                let d = p - t, w = p * (1 - p)
                ga += d * x; gb += d
                haa += w * x * x; hab += w * x; hbb += w
            }
            let determinant = haa * hbb - hab * hab
            guard determinant > 1e-12 else { break }
            let da = (hbb * ga - hab * gb) / determinant, db = (haa * gb - hab * ga) / determinant
            a -= da; b -= db
            if abs(da) < 1e-9 && abs(db) < 1e-9 { break }
        }
        return a.isFinite && b.isFinite ? Calibration(a: a, b: b) : Calibration()
    }
}
