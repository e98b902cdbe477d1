import BouncerModeration
import Dispatch
import Foundation

/// From labelled texts to a model file's contents: what `bouncer train` and the service's
/// training both do.
public enum ModelTraining {
    /// The texts as the model reads them: normalized as the rules see them, on every core when
    /// `parallel` (offline), else on the caller's thread (in a running service, which must not
    /// take the cores sends use).
    public static func examples(_ texts: [LabelledText], weight: Float = 1, parallel: Bool = true) -> [TrainingExample] {
        guard parallel else {
            return texts.map { TrainingExample(words: NormalizedText($0.text).words, label: $0.label, attribute: $0.attribute, weight: weight) }
        }
        let words = [[UInt8]](unsafeUninitializedCapacity: texts.count) { buffer, count in
            // Each chunk writes its own elements only.
            nonisolated(unsafe) let base = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: max(1, (texts.count + 1023) / 1024)) { chunk in
                for index in (chunk * 1024)..<min(texts.count, chunk * 1024 + 1024) {
                    (base + index).initialize(to: NormalizedText(texts[index].text).words)
                }
            }
            count = texts.count
        }
        return zip(texts, words).map { TrainingExample(words: $1, label: $0.label, attribute: $0.attribute, weight: weight) }
    }

    /// The model the results make: each trained attribute, and every attribute of `base` that was
    /// not trained this time, as it was.
    public static func model(_ results: [Trainer.Result], base: HarmModel?, hasher: FeatureHasher, info: ModelInfo) -> HarmModel {
        var info = info
        var heads = results.map(\.head)
        for result in results { info.evaluation[result.head.attribute] = result.evaluation }
        if let base, base.hasher == hasher {
            for head in base.heads where !heads.contains(where: { $0.attribute == head.attribute }) {
                heads.append(head)
                info.evaluation[head.attribute] = base.info.evaluation[head.attribute]
            }
        }
        return HarmModel(hasher: hasher, heads: heads.sorted { $0.attribute < $1.attribute }, info: info)
    }
}
