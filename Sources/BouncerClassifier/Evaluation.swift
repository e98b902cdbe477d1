/// How well an attribute's scores separate the texts labelled 1 from those labelled 0, measured on
/// texts the model did not learn from.
public struct Evaluation: Sendable, Equatable, Codable {
    /// The area under the ROC curve: the chance that a text labelled 1 scores above one labelled 0.
    public var auc: Double
    /// At `threshold`: of the texts scored at or above it, the share labelled 1.
    public var precision: Double
    /// At `threshold`: of the texts labelled 1, the share scored at or above it.
    public var recall: Double
    public var f1: Double
    public var threshold: Double
    /// How many texts were held out and scored.
    public var held_out: Int

    public init(auc: Double, precision: Double, recall: Double, f1: Double, threshold: Double, held_out: Int) {
        self.auc = auc
        self.precision = precision
        self.recall = recall
        self.f1 = f1
        self.threshold = threshold
        self.held_out = held_out
    }

    /// Measures `scores` against `labels` (each `true` for 1). With no text of one label the AUC
    /// is undefined and given as 0.5, and a precision with nothing scored above the threshold as 0.
    public init(scores: [Double], labels: [Bool], threshold: Double = 0.5) {
        precondition(scores.count == labels.count)
        var truePositives = 0, falsePositives = 0, positives = 0
        for (score, label) in zip(scores, labels) {
            if label { positives += 1 }
            if score >= threshold { if label { truePositives += 1 } else { falsePositives += 1 } }
        }
        let precision = truePositives + falsePositives == 0 ? 0 : Double(truePositives) / Double(truePositives + falsePositives)
        let recall = positives == 0 ? 0 : Double(truePositives) / Double(positives)
        self.init(auc: Self.auc(scores: scores, labels: labels), precision: precision, recall: recall,
                  f1: precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall), threshold: threshold,
                  held_out: scores.count)
    }

    /// The AUC by ranks (the Mann-Whitney statistic), ties sharing their mean rank.
    public static func auc(scores: [Double], labels: [Bool]) -> Double {
        let positives = labels.count { $0 }, negatives = labels.count - positives
        guard positives > 0, negatives > 0 else { return 0.5 }
        let order = scores.indices.sorted { scores[$0] < scores[$1] }
        var rankSum = 0.0
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && scores[order[end + 1]] == scores[order[start]] { end += 1 }
            let meanRank = Double(start + end) / 2 + 1
            for position in start...end where labels[order[position]] { rankSum += meanRank }
            start = end + 1
        }
        let p = Double(positives), n = Double(negatives)
        return (rankSum - p * (p + 1) / 2) / (p * n)
    }
}
