/// An earlier message's mark, as a record finds it.
public struct EarlierMark: Sendable, Equatable {
    public var weight: Int
    /// How alike its text's sketch and the new mark's are (`SketchSimilarity`): what confirms a
    /// near-duplicate found by a band. 1 when either mark keeps no sketch (its keys matched).
    public var likeness: Double

    public init(weight: Int, likeness: Double) {
        self.weight = weight
        self.likeness = likeness
    }

    /// The likeness of a kept sketch to a new mark's.
    public static func likeness<Kept: Collection<UInt32>>(of kept: Kept, to sketch: [UInt32]) -> Double {
        kept.isEmpty || sketch.isEmpty ? 1 : SketchSimilarity.of(kept, sketch)
    }
}
