/// How alike two texts' MinHash sketches say they are: the share of slots that hold the same
/// value, which estimates the share of shingles the texts have in common (Jaccard similarity).
/// Here, not with the sketches' maker, because the rate ledgers compare a new sketch with the
/// ones they keep, and the engine compares the same way.
public enum SketchSimilarity {
    /// 0 when the sketches differ in length or are empty.
    @inlinable
    public static func of<A: Collection<UInt32>, B: Collection<UInt32>>(_ a: A, _ b: B) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var equal = 0
        for (left, right) in zip(a, b) where left == right { equal += 1 }
        return Double(equal) / Double(a.count)
    }
}
