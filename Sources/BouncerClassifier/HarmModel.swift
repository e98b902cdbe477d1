import BouncerModeration
import Foundation

/// A learned classifier: for each attribute it knows (`toxicity`, ...), a logistic model over the
/// hashed features of a text's normalized words (`FeatureHasher`), with its raw score mapped to a
/// calibrated probability (`Calibration`). Immutable: training makes a new model.
public final class HarmModel: Sendable {
    public let hasher: FeatureHasher
    public let heads: [Head]
    public let info: ModelInfo

    /// One attribute's weights, as 16-bit integers times `scale` (as the model file keeps them):
    /// half the memory of 32-bit floats, so more of them stay in the processor's caches between
    /// one message and the next; a text's sum is taken in integers and scaled once.
    public struct Head: Sendable {
        public let attribute: String
        /// `hasher.buckets` weights, each `Float(weights[i]) * scale`.
        public let weights: [Int16]
        public let scale: Float
        public let bias: Float
        public let calibration: Calibration

        public init(attribute: String, weights: [Int16], scale: Float, bias: Float, calibration: Calibration) {
            self.attribute = attribute
            self.weights = weights
            self.scale = scale
            self.bias = bias
            self.calibration = calibration
        }

        /// The weights rounded to 1/32767 of the largest: scores move by less than 0.001.
        public init(attribute: String, floatWeights: [Float], bias: Float, calibration: Calibration) {
            let largest = floatWeights.reduce(Float(0)) { max($0, abs($1)) }
            let scale = largest > 0 ? largest / 32767 : 1
            self.init(attribute: attribute, weights: floatWeights.map { Int16(clamping: Int(($0 / scale).rounded())) }, scale: scale,
                      bias: bias, calibration: calibration)
        }

        /// The weights as numbers (a training's start).
        public var floatWeights: [Float] { weights.map { Float($0) * scale } }
    }

    public init(hasher: FeatureHasher, heads: [Head], info: ModelInfo) {
        precondition(heads.allSatisfy { $0.weights.count == hasher.buckets }, "every head has a weight for each bucket")
        self.hasher = hasher
        self.heads = heads
        self.info = info
    }

    public var attributes: [String] { heads.map(\.attribute) }

    public func head(_ attribute: String) -> Head? { heads.first { $0.attribute == attribute } }

    /// Each attribute's probability for `text`, in `heads` order.
    public func scores(_ text: String) -> [Double] { scores(normalized: NormalizedText(text)) }

    /// Each attribute's probability for a text already normalized (as the rules saw it).
    public func scores(normalized: NormalizedText) -> [Double] {
        normalized.words.withUnsafeBufferPointer { scores(words: $0) }
    }

    public func scores(words: UnsafeBufferPointer<UInt8>) -> [Double] {
        heads.map { $0.calibration.probability(raw(words: words, head: $0)) }
    }

    /// The head's uncalibrated score: its bias plus the weights of the text's features, each with
    /// its sign, scaled by `FeatureHasher.scale(count:)`.
    func raw(words: UnsafeBufferPointer<UInt8>, head: Head) -> Double {
        head.weights.withUnsafeBufferPointer { weights in
            var sum: Int32 = 0
            let count = hasher.forEachFeature(words) { feature in
                let weight = Int32(weights[Int(feature & 0x7FFF_FFFF)])
                sum &+= feature & 0x8000_0000 == 0 ? weight : -weight
            }
            return Double(head.bias) + Double(Float(sum) * head.scale * FeatureHasher.scale(count: count))
        }
    }
}

/// Maps a raw score to a probability: `1 / (1 + e^-(a * raw + b))`, with `a` and `b` fitted on
/// texts the weights were not trained on (Platt's method), so that 0.9 means about nine in ten.
public struct Calibration: Sendable, Equatable, Codable {
    public var a: Double
    public var b: Double

    public init(a: Double = 1, b: Double = 0) {
        self.a = a
        self.b = b
    }

    @inline(__always)
    public func probability(_ raw: Double) -> Double { 1 / (1 + exp(-(a * raw + b))) }
}
