import BouncerDomain
import Locking
import Synchronization

/// The ledger of one instance. Bounded: marks older than their window are dropped as the sender
/// sends again, and by a sweep of every sender each `sweepInterval`; a sender keeps at most
/// `maxMarksPerSender` marks a rule, and the ledger about `maxSenders` senders and `maxMarks`
/// marks (the longest quiet senders go first).
public final class MemoryRateLedger: RateLedger {
    /// A sender's marks of one rule, oldest first, in flat arrays (a mark allocates nothing once
    /// they have grown): mark `i` has its tags at `tagWords[i * tagStride...]`, and so on.
    ///
    /// Kin are found by reading the sender's marks from first to last, key against key in place.
    /// What is read is 16 bits made of each key (its tag), four to a word (`tagWords`), so that
    /// one subtraction and two masks compare four places; 16 more (`checks`) are read only where a
    /// tag agrees. Two keys that agree in those 32 bits are taken for the same: two different keys
    /// do by chance once in four billion. A sketch is kept in 16
    /// bits a slot. So a mark is about 170 bytes, and a sender's few hundred a few kilobytes read in
    /// order: the ledger's memory, which every send runs through, stays small beside the caches
    /// the rest of a send needs. An index by key, tried before, cost more: a dozen keys a message
    /// to look up, add and remove, each a miss in a table spread over memory.
    private struct SenderMarks {
        /// Each key's tag (16 bits), four places to a word (place `p` in lane `p % 4` of word
        /// `p / 4`), `tagStride` words a mark; lanes past a mark's keys hold 0.
        private var tagWords: [UInt64] = []
        /// Each key's check (16 more bits), `keyStride` a mark.
        private var checks: [UInt16] = []
        /// The low 16 bits of each slot of the sketch, `sketchStride` a mark.
        private var sketches: [UInt16] = []
        /// The rest of each mark, in one array: a mark adds to three arrays, not one a field.
        private var facts: [Facts] = []
        private var keyStride = 0
        private var tagStride = 0
        private var sketchStride = 0
        /// Marks before this index were dropped; the arrays are shifted down now and then.
        private var head = 0
        var lastAt: Double = 0
        var window: Double = 0

        private struct Facts {
            var at: Double
            var weight: Int
            var keyCount: UInt32
            var sketchCount: UInt32
        }

        var count: Int { facts.count - head }

        /// Drops the marks older than `cutoff`, and the oldest past `limit`. Returns how many.
        @discardableResult
        mutating func dropOlder(than cutoff: Double, keeping limit: Int) -> Int {
            let before = head
            while head < facts.count, facts[head].at < cutoff || count > limit { head += 1 }
            let dropped = head - before
            if head == facts.count {
                tagWords.removeAll(keepingCapacity: true)
                checks.removeAll(keepingCapacity: true)
                sketches.removeAll(keepingCapacity: true)
                facts.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= facts.count {
                tagWords.removeFirst(head * tagStride)
                checks.removeFirst(head * keyStride)
                sketches.removeFirst(head * sketchStride)
                facts.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// The earlier marks that hold one of `newKeys` in the same place, oldest first, with
        /// their likeness to `sketch`.
        func kin(of newKeys: [UInt64], sketch: [UInt32]) -> [EarlierMark] {
            guard !newKeys.isEmpty, head < facts.count else { return [] }
            // Keys past the earlier marks' widest have no counterpart.
            let places = min(newKeys.count, keyStride)
            var kin: [EarlierMark] = []
            // The new mark's tag words and lane masks, and its sketch as kept: on the stack.
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * tagStride) { words in
                withUnsafeTemporaryAllocation(of: UInt16.self, capacity: sketch.count) { newSketch in
                    let newWords = UnsafeMutableBufferPointer(rebasing: words[..<tagStride])
                    let lanes = UnsafeMutableBufferPointer(rebasing: words[tagStride...])
                    Self.pack(newKeys.prefix(places), into: newWords)
                    for word in 0..<tagStride {
                        let count = min(max(places - word * 4, 0), 4)
                        lanes[word] = (count == 4 ? UInt64.max : (1 << (16 * count)) &- 1) & 0x8000_8000_8000_8000
                    }
                    for slot in 0..<sketch.count { newSketch[slot] = Self.kept(sketch[slot]) }
                    tagWords.withUnsafeBufferPointer { tagWords in
                        for mark in head..<facts.count where Self.anyLaneZero(tagWords, from: mark &* tagStride, newWords, lanes) {
                            let facts = facts[mark]
                            // A lane past the mark's own keys holds 0, and may agree with a new tag by chance.
                            let shared = (0..<min(Int(facts.keyCount), places)).contains { place in
                                Self.tag(newKeys[place]) == UInt16(truncatingIfNeeded: tagWords[mark &* tagStride &+ place / 4] >> (16 * (place % 4)))
                                    && checks[mark * keyStride + place] == Self.check(newKeys[place])
                            }
                            guard shared else { continue }
                            let kept = sketches[(mark * sketchStride)..<(mark * sketchStride + Int(facts.sketchCount))]
                            kin.append(EarlierMark(weight: facts.weight,
                                                   likeness: kept.isEmpty || sketch.isEmpty ? 1 : SketchSimilarity.of(kept, newSketch)))
                        }
                    }
                }
            }
            return kin
        }

        /// A key's tag and check are the top 32 bits of it times an odd constant: a bijection,
        /// whose top bits depend on all of the key's, so small keys are told apart as hashes are.
        private static func spread(_ key: UInt64) -> UInt64 { key &* 0x9E37_79B9_7F4A_7C15 }
        private static func tag(_ key: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: spread(key) >> 48) }
        private static func check(_ key: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: spread(key) >> 32) }
        private static func kept(_ slot: UInt32) -> UInt16 { UInt16(truncatingIfNeeded: slot) }

        /// Whether the mark whose tag words start at `start` agrees with `newWords` in a lane of
        /// `lanes`. A lane of `tags ^ new` is 0 where they agree; `(x - 1) & ~x` sets a lane's
        /// top bit when the lane is 0 (a lane above one that is may be set too, but then one below
        /// it is, so the answer stands).
        private static func anyLaneZero(_ tagWords: UnsafeBufferPointer<UInt64>, from start: Int,
                                        _ newWords: UnsafeMutableBufferPointer<UInt64>, _ lanes: UnsafeMutableBufferPointer<UInt64>) -> Bool {
            var zeroLanes: UInt64 = 0
            for word in 0..<lanes.count {
                let differing = tagWords[start &+ word] ^ newWords[word]
                zeroLanes |= (differing &- 0x0001_0001_0001_0001) & ~differing & lanes[word]
            }
            return zeroLanes != 0
        }

        /// Packs `keys`' tags four to a word into `words` (lanes past the keys 0).
        private static func pack(_ keys: some Collection<UInt64>, into words: UnsafeMutableBufferPointer<UInt64>) {
            words.initialize(repeating: 0)
            for (place, key) in keys.enumerated() { words[place / 4] |= UInt64(tag(key)) << (16 * (place % 4)) }
        }

        mutating func add(keys newKeys: [UInt64], weight: Int, sketch: [UInt32], at: Double) {
            if newKeys.count > keyStride {
                let wider = (newKeys.count + 3) / 4
                tagWords = Self.restride(tagWords, from: tagStride, to: wider, marks: facts.count)
                checks = Self.restride(checks, from: keyStride, to: newKeys.count, marks: facts.count)
                keyStride = newKeys.count
                tagStride = wider
            }
            if sketch.count > sketchStride {
                sketches = Self.restride(sketches, from: sketchStride, to: sketch.count, marks: facts.count)
                sketchStride = sketch.count
            }
            // Each array grows once a mark, by its whole stride (an append a value would check
            // the array's room and owner for every one).
            let start = tagWords.count
            tagWords.append(contentsOf: repeatElement(0, count: tagStride))
            tagWords.withUnsafeMutableBufferPointer { Self.pack(newKeys, into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
            let checkStart = checks.count, sketchStart = sketches.count
            checks.append(contentsOf: repeatElement(0, count: keyStride))
            checks.withUnsafeMutableBufferPointer { checks in
                for (place, key) in newKeys.enumerated() { checks[checkStart &+ place] = Self.check(key) }
            }
            sketches.append(contentsOf: repeatElement(0, count: sketchStride))
            sketches.withUnsafeMutableBufferPointer { sketches in
                for (slot, value) in sketch.enumerated() { sketches[sketchStart &+ slot] = Self.kept(value) }
            }
            facts.append(Facts(at: at, weight: weight, keyCount: UInt32(newKeys.count), sketchCount: UInt32(sketch.count)))
        }

        /// The flat array of `marks` marks of `old` values each, with `new` values each (the
        /// added ones 0). Only when a sender's marks of a rule first carry more keys or a
        /// sketch than before: the first long text after short ones.
        private static func restride<Value: FixedWidthInteger>(_ values: [Value], from old: Int, to new: Int, marks: Int) -> [Value] {
            guard new > old else { return values }
            var wider: [Value] = []
            wider.reserveCapacity(marks * new)
            for mark in 0..<marks {
                wider.append(contentsOf: values[(mark * old)..<(mark * old + old)])
                wider.append(contentsOf: repeatElement(0, count: new - old))
            }
            return wider
        }
    }

    /// A sender's marks of one rule.
    private struct SenderKey: Hashable {
        var userID: String
        var ruleID: String
    }

    private struct State {
        var senders: [SenderKey: SenderMarks] = [:]
        /// Marks held by all of the shard's senders.
        var marks = 0
    }

    /// The most any rule may keep a sender (`RateMark.keep`): four times the largest flood threshold.
    public static let maxMarksPerSender = RateMark.maxKept
    public static let maxSenders = 200_000
    /// Marks held in all (a mark is about 170 bytes: its keys' tags and its sketch).
    public static let maxMarks = 1_000_000
    static let sweepInterval = 10.0
    /// Senders are spread over this many locks, by their id: sends from different users, on
    /// different threads, seldom wait for each other.
    static let shardCount = 16

    private let shards = (0..<shardCount).map { _ in Locked(State()) }
    /// The whole second every shard was last swept (each under its own lock, one after another):
    /// an atomic, so that the look at it on every record is no lock all senders share.
    private let lastSweep = Atomic<Int>(0)

    public init() {}

    public var senderCount: Int { shards.reduce(0) { $0 + $1.withLock { $0.senders.count } } }

    private func shard(_ userID: String) -> Locked<State> {
        var hasher = Hasher()
        hasher.combine(userID)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.shardCount))]
    }

    public func record(_ marks: [RateMark], completion: @escaping @Sendable (Result<[[EarlierMark]], any Error>) -> Void) {
        completion(.success(record(marks)))
    }

    public func recordAtOnce(_ marks: [RateMark]) -> [[EarlierMark]]? { record(marks) }

    /// One message's marks are one sender's, so they take one lock.
    private func record(_ marks: [RateMark]) -> [[EarlierMark]] {
        guard let sender = marks.first?.userID else { return [] }
        precondition(marks.allSatisfy { $0.userID == sender }, "a message's marks are one sender's")
        let found = shard(sender).withLock { state -> [[EarlierMark]] in
            var answers: [[EarlierMark]] = []
            answers.reserveCapacity(marks.count)
            for index in marks.indices {
                // Changed where it is kept: a copy taken out and put back would copy every mark.
                let (kin, added) = Self.record(marks, index, in: &state.senders[SenderKey(userID: sender, ruleID: marks[index].ruleID),
                                                                                 default: SenderMarks()])
                answers.append(kin)
                state.marks += added
            }
            if state.senders.count > Self.maxSenders / Self.shardCount || state.marks > Self.maxMarks / Self.shardCount,
               let now = marks.last?.at {
                Self.sweep(&state, now: now)
            }
            return answers
        }
        if let now = marks.last?.at {
            let last = lastSweep.load(ordering: .relaxed)
            if now - Double(last) >= Self.sweepInterval,
               lastSweep.compareExchange(expected: last, desired: Int(now), ordering: .relaxed).exchanged {
                for shard in shards { shard.withLock { Self.sweep(&$0, now: now) } }
            }
        }
        return found
    }

    /// Returns the mark's kin, and by how many the sender's marks grew (dropped ones counted off).
    /// `marks[index]` read field by field: a mark taken whole is a copy, its strings and arrays
    /// retained and released.
    private static func record(_ marks: [RateMark], _ index: Int, in held: inout SenderMarks) -> ([EarlierMark], Int) {
        let at = marks[index].at, window = marks[index].window
        let dropped = held.dropOlder(than: at - window, keeping: min(max(1, marks[index].keep), maxMarksPerSender) - 1)
        let kin = held.kin(of: marks[index].keys, sketch: marks[index].sketch)
        held.add(keys: marks[index].keys, weight: marks[index].weight, sketch: marks[index].sketch, at: at)
        held.lastAt = at
        held.window = window
        return (kin, 1 - dropped)
    }

    /// Drops a shard's senders whose marks have all expired, and the longest quiet past its share
    /// of `maxSenders`.
    private static func sweep(_ state: inout State, now: Double) {
        let most = maxSenders / shardCount, mostMarks = maxMarks / shardCount
        state.senders = state.senders.filter { now - $0.value.lastAt <= $0.value.window }
        state.marks = state.senders.values.reduce(0) { $0 + $1.count }
        guard state.senders.count > most || state.marks > mostMarks else { return }
        for (sender, marks) in state.senders.sorted(by: { $0.value.lastAt < $1.value.lastAt }) {
            guard state.senders.count > most * 9 / 10 || state.marks > mostMarks * 9 / 10 else { break }
            state.senders[sender] = nil
            state.marks -= marks.count
        }
    }
}
