import BouncerModeration
import Foundation

/// A learned classifier: for each attribute it knows (`toxicity`, ...), a logistic model over the
/// hashed features of a text's normalized words (`FeatureHasher`), with its raw score mapped to a
/// calibrated probability (`Calibration`). Immutable: training makes a new model.
public final class HarmModel: Sendable {
    public let hasher: FeatureHasher
    public let heads: [Head]
    public let info: ModelInfo

    /// One attribute's weights.
    public struct Head: Sendable {
        public let attribute: String
        /// `hasher.buckets` weights.
        public let weights: [Float]
        public let bias: Float
        public let calibration: Calibration

        public init(attribute: String, weights: [Float], bias: Float, calibration: Calibration) {
            self.attribute = attribute
            self.weights = weights
            self.bias = bias
            self.calibration = calibration
        }
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
            var sum: Float = 0
            let count = hasher.forEachFeature(words) { feature in
                let weight = weights[Int(feature & 0x7FFF_FFFF)]
                sum += feature & 0x8000_0000 == 0 ? weight : -weight
            }
            return Double(head.bias) + Double(sum * FeatureHasher.scale(count: count))
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
