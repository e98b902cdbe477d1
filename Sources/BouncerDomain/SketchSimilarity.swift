/// How alike two texts' MinHash sketches say they are: the share of slots that hold the same
/// value, which estimates the share of shingles the texts have in common (Jaccard similarity).
/// The slots may be kept in fewer bits than made (the in-memory ledger keeps 16): two slots that
/// differ then agree by chance once in 2^bits, which moves no threshold.
/// Here, not with the sketches' maker, because the rate ledgers compare a new sketch with the
/// ones they keep, and the engine compares the same way.
public enum SketchSimilarity {
    /// 0 when the sketches differ in length or are empty.
    @inlinable
    public static func of<A: Collection, B: Collection>(_ a: A, _ b: B) -> Double
    where A.Element == B.Element, A.Element: FixedWidthInteger {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        // Sketches are kept in arrays: counted there without a branch a slot, several at once.
        let counted = a.withContiguousStorageIfAvailable { a in
            b.withContiguousStorageIfAvailable { b in
                var equal = 0
                for slot in 0..<a.count { equal &+= a[slot] == b[slot] ? 1 : 0 }
                return equal
            }
        }
        if let equal = counted ?? nil { return Double(equal) / Double(a.count) }
        var equal = 0
        for (left, right) in zip(a, b) where left == right { equal += 1 }
        return Double(equal) / Double(a.count)
    }
}
