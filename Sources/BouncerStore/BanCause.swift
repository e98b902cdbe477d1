/// What caused a ban (migration 0019): the strike its decision made, and for the strike policy's
/// bans the step's count of strikes. A moderator's ban from the API has none.
public struct BanCause: Sendable, Equatable {
    public var strikeID: String?
    public var strikeStep: Int?

    public init(strikeID: String?, strikeStep: Int?) {
        self.strikeID = strikeID
        self.strikeStep = strikeStep
    }

    public static let none = BanCause(strikeID: nil, strikeStep: nil)
}
