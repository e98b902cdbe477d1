import Locking

/// The rule set in force. Replacing it is atomic: a check runs against the set it started with,
/// whole, however the rules change meanwhile.
public final class RuleEngine: Sendable {
    private let current: Locked<CompiledRuleSet>

    public init(_ ruleSet: CompiledRuleSet) {
        current = Locked(ruleSet)
    }

    public var ruleSet: CompiledRuleSet { current.withLock { $0 } }

    public func replace(with ruleSet: CompiledRuleSet) {
        current.withLock { $0 = ruleSet }
    }

    public func check(_ text: String, channel: String? = nil) -> Verdict {
        ruleSet.check(text, channel: channel)
    }
}
