import BouncerDomain

// The domain's enums are stored as their raw values, as GRDB stores `RawRepresentable` types:
// the columns' CHECK constraints hold the same lists.

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue == String {
    public var databaseValue: DatabaseValue { .text(rawValue) }
    public init?(databaseValue: DatabaseValue) {
        guard case .text(let text) = databaseValue, let value = Self(rawValue: text) else { return nil }
        self = value
    }
}

extension MessageState: DatabaseValueConvertible {}
extension FlagState: DatabaseValueConvertible {}
extension RuleKind: DatabaseValueConvertible {}
extension RuleAction: DatabaseValueConvertible {}
extension RuleMode: DatabaseValueConvertible {}
