import BouncerClassifier
import BouncerModeration
import Locking

/// The harm-score model in force (none when scores are turned off): every text judged is scored by
/// it. Replacing it is atomic, as the rules' are: a judgement uses the model it started with.
package final class Classifier: Sendable {
    private let current: Locked<HarmModel?>

    package init(_ model: HarmModel?) {
        current = Locked(model)
    }

    package var model: HarmModel? { current.withLock { $0 } }

    package func replace(with model: HarmModel?) {
        current.withLock { $0 = model }
    }

    /// The attributes the model in force knows (none without one).
    package var attributes: [String] { model?.attributes ?? [] }
}

extension HarmModel {
    /// The scores of a text normalized as the rules saw it.
    package func harmScores(_ normalized: NormalizedText) -> HarmScores {
        HarmScores(attributes: attributes, values: scores(normalized: normalized))
    }
}
