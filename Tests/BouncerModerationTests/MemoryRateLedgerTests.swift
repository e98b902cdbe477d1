import BouncerDomain
import BouncerModeration
import Locking
import Testing

@Suite struct MemoryRateLedgerTests {
    static func record(_ ledger: MemoryRateLedger, _ marks: [RateMark]) -> [[EarlierMark]] {
        let found = Locked<[[EarlierMark]]>([])
        ledger.record(marks) { answer in found.withLock { $0 = (try? answer.get()) ?? [] } }
        return found.withLock { $0 }
    }

    static func mark(_ user: String, keys: [UInt64], at: Double, window: Double = 60, weight: Int = 1) -> RateMark {
        RateMark(userID: user, ruleID: "r", keys: keys, weight: weight, sketch: [], at: at, window: window)
    }

    @Test("a mark finds the sender's earlier marks that hold one of its keys in its place, each once, within the window")
    func findsKin() {
        let ledger = MemoryRateLedger()
        #expect(Self.record(ledger, [Self.mark("a", keys: [1, 2, 5], at: 0)]) == [[]])
        _ = Self.record(ledger, [Self.mark("a", keys: [6, 7, 3], at: 1)])
        _ = Self.record(ledger, [Self.mark("b", keys: [1], at: 2)])
        // Keys 1 and 2 both lead to the first mark: it is found once. Key 3 is the second's.
        #expect(Self.record(ledger, [Self.mark("a", keys: [1, 2, 3], at: 3)])[0].count == 2)
        // Past the window, the first two are gone (the third is kin now).
        #expect(Self.record(ledger, [Self.mark("a", keys: [1, 2, 3], at: 62)])[0].count == 1)
    }

    @Test("a key in another place is no kin: marks' makers hash a key with its place")
    func keysHaveTheirPlace() {
        let ledger = MemoryRateLedger()
        _ = Self.record(ledger, [Self.mark("a", keys: [1, 2], at: 0)])
        #expect(Self.record(ledger, [Self.mark("a", keys: [2, 1], at: 1)])[0].isEmpty)
        #expect(Self.record(ledger, [Self.mark("a", keys: [9, 2], at: 2)])[0].count == 1)
    }

    @Test("places past the fourth are compared too, and only those both marks have")
    func placesPastTheFirstWord() {
        let ledger = MemoryRateLedger()
        _ = Self.record(ledger, [Self.mark("a", keys: [1, 2, 3, 4, 5, 6], at: 0)])
        // Only the sixth place agrees.
        #expect(Self.record(ledger, [Self.mark("a", keys: [11, 12, 13, 14, 15, 6], at: 1)])[0].count == 1)
        // Five keys: the sixth place, where the first two marks hold 6, is none of this one's.
        #expect(Self.record(ledger, [Self.mark("a", keys: [21, 22, 23, 24, 25], at: 2)])[0].isEmpty)
        // Seven keys: the seventh has no counterpart in the earlier marks (their lanes there hold
        // nothing), and the fifth meets the first mark's.
        #expect(Self.record(ledger, [Self.mark("a", keys: [31, 32, 33, 34, 5, 36, 0], at: 3)])[0].count == 1)
    }

    @Test("a sender's marks of one rule may carry more keys, and a sketch, than the earlier ones; kin carry their likeness")
    func widens() {
        let ledger = MemoryRateLedger()
        let sketch = (0..<48).map { UInt32($0) }
        func mark(_ keys: [UInt64], _ sketch: [UInt32], at: Double) -> RateMark {
            RateMark(userID: "a", ruleID: "r", keys: keys, weight: 1, sketch: sketch, at: at, window: 60)
        }
        // A short text (one key, no sketch), then a long one (twelve keys and a sketch).
        _ = Self.record(ledger, [mark([1], [], at: 0)])
        _ = Self.record(ledger, [mark(Array(10..<22), sketch, at: 1)])
        var halfAlike = sketch
        for slot in 0..<24 { halfAlike[slot] = 1000 }
        let found = Self.record(ledger, [mark([1] + Array(11..<22), halfAlike, at: 2)])[0]
        // The short one is found by its key (no sketch to compare: likeness 1); the long one by
        // its keys, half its slots equal.
        #expect(found.map(\.likeness).sorted() == [0.5, 1])
        // Both kept their keys through the widening: each is found again by its own.
        #expect(Self.record(ledger, [mark([1], [], at: 3)])[0].count == 2)
        #expect(Self.record(ledger, [mark([10], [], at: 4)])[0].count == 1)
    }

    @Test("a sender keeps a bounded number of marks, and quiet senders are swept")
    func bounded() {
        let ledger = MemoryRateLedger()
        for index in 0..<(MemoryRateLedger.maxMarksPerSender + 50) {
            _ = Self.record(ledger, [Self.mark("a", keys: [7], at: Double(index) * 0.001)])
        }
        #expect(Self.record(ledger, [Self.mark("a", keys: [7], at: 1)])[0].count == MemoryRateLedger.maxMarksPerSender - 1)
        for user in 0..<100 { _ = Self.record(ledger, [Self.mark("u\(user)", keys: [1], at: 2, window: 5)]) }
        #expect(ledger.senderCount == 101)
        // A mark well after every window: the sweep leaves the one who just sent.
        _ = Self.record(ledger, [Self.mark("late", keys: [1], at: 1000, window: 5)])
        #expect(ledger.senderCount == 1)
    }
}
