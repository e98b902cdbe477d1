/// What a store made of a decision's plan. A plan is computed outside the store from what the
/// store was read to hold (its snapshot); the store applies it in one transaction only while the
/// snapshot still holds. `stale`: another write came first, so the caller reads again and plans
/// again, and nothing of the old plan was written.
public enum Planned<Value: Sendable>: Sendable {
    case applied(Value)
    case stale
}

/// A plan that went stale again and again: other writes to the same message or user kept coming
/// first. Answered as the store's conflicts are (503): the same request can succeed a moment later.
public struct PlanKeptGoingStale: StoreFailure {
    public var what: String
    public var isUnavailable: Bool { false }
    public var isConflict: Bool { true }
    public var description: String { "\(what): what the decision was planned on kept changing" }

    public init(what: String) { self.what = what }

    /// How many times a decision reads and plans before it gives up.
    public static let attempts = 16
}
