/// What a rate rule notes of a message, to judge the sender's next ones by.
public struct RateMark: Sendable, Equatable {
    public var userID: String
    public var ruleID: String
    /// Earlier marks that hold one of these keys in the same place are its kin: the text's
    /// fingerprint, the bands of its sketch, or one key for every message (a count of links). Each
    /// key is made with its place in it (a band is hashed with where it starts), so a ledger that
    /// matches keys in any place, as PostgreSQL's does, finds the same kin.
    public var keys: [UInt64]
    /// How much the message counts (its number of links; 1 for a flood).
    public var weight: Int
    /// The text's sketch, to confirm a near-duplicate found by a band (empty when not needed).
    public var sketch: [UInt32]
    /// Seconds since 1970.
    public var at: Double
    /// How far back kin count, in seconds.
    public var window: Double
    /// Most of the sender's marks of this rule worth keeping (the oldest go first past it): what
    /// the rule can need, so that memory holds no more.
    public var keep: Int

    /// Most marks a sender keeps of one rule, whatever a rule asks: a bound on memory.
    public static let maxKept = 400

    public init(userID: String, ruleID: String, keys: [UInt64], weight: Int, sketch: [UInt32], at: Double, window: Double,
                keep: Int = RateMark.maxKept) {
        self.userID = userID
        self.ruleID = ruleID
        self.keys = keys
        self.weight = weight
        self.sketch = sketch
        self.at = at
        self.window = window
        self.keep = keep
    }
}
