import BouncerDomain
import Locking
import Synchronization

/// What a rate rule notes of a message, to judge the sender's next ones by.
public struct RateMark: Sendable, Equatable {
    public var userID: String
    public var ruleID: String
    /// Earlier marks that share a key with this one are its kin: the text's fingerprint, the bands
    /// of its sketch, or one key for every message (a count of links).
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

    public init(userID: String, ruleID: String, keys: [UInt64], weight: Int, sketch: [UInt32], at: Double, window: Double,
                keep: Int = MemoryRateLedger.maxMarksPerSender) {
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

/// Where rate rules keep each sender's recent marks: in memory for one instance, in the shared
/// database for several (`ServiceStore.sharedRateLedger`).
public protocol RateLedger: Sendable {
    /// Adds `marks` (one message's, any number of rules) and answers, for each in order, the
    /// earlier marks of the same user and rule within its window that share one of its keys, each
    /// earlier message once. `completion` may run before this returns.
    func record(_ marks: [RateMark], completion: @escaping @Sendable ([[EarlierMark]]) -> Void)
}

/// The ledger of one instance. Bounded: marks older than their window are dropped as the sender
/// sends again, and by a sweep of every sender each `sweepInterval`; a sender keeps at most
/// `maxMarksPerSender` marks a rule, and the ledger about `maxSenders` senders and `maxMarks`
/// marks (the longest quiet senders go first).
public final class MemoryRateLedger: RateLedger {
    /// A sender's marks of one rule, oldest first, in flat arrays (a mark allocates nothing once
    /// they have grown): mark `i` has its keys at `keys[i * keyStride...]`, and so on. Marks are
    /// numbered by serials that count up from `firstSerial`, so a serial finds its mark by
    /// subtraction.
    private struct SenderMarks {
        private var keys: [UInt64] = []
        /// For each key, the serial of the sender's previous mark under it (0: none): the marks
        /// under a key are a chain from the latest back, so kin are found without a list a key.
        private var previous: [UInt64] = []
        private var keyCounts: [Int] = []
        private var sketches: [UInt32] = []
        private var sketchCounts: [Int] = []
        private var weights: [Int] = []
        private var times: [Double] = []
        private var keyStride = 0
        private var sketchStride = 0
        /// Marks before this index were dropped; the arrays are shifted down now and then.
        private var head = 0
        private(set) var firstSerial: UInt64 = 1
        private var nextSerial: UInt64 = 1
        /// The latest serial under each key.
        private var latest = KeyIndex()
        var lastAt: Double = 0
        var window: Double = 0

        var count: Int { times.count - head }

        /// Drops the marks older than `cutoff`, and the oldest past `limit`. Returns how many.
        @discardableResult
        mutating func dropOlder(than cutoff: Double, keeping limit: Int) -> Int {
            var dropped = 0
            while head < times.count, times[head] < cutoff || count > limit {
                for index in 0..<keyCounts[head] { latest.remove(keys[head * keyStride + index], ifHolding: firstSerial) }
                head += 1
                firstSerial += 1
                dropped += 1
            }
            if head == times.count {
                keys.removeAll(keepingCapacity: true)
                previous.removeAll(keepingCapacity: true)
                keyCounts.removeAll(keepingCapacity: true)
                sketches.removeAll(keepingCapacity: true)
                sketchCounts.removeAll(keepingCapacity: true)
                weights.removeAll(keepingCapacity: true)
                times.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= times.count {
                keys.removeFirst(head * keyStride)
                previous.removeFirst(head * keyStride)
                keyCounts.removeFirst(head)
                sketches.removeFirst(head * sketchStride)
                sketchCounts.removeFirst(head)
                weights.removeFirst(head)
                times.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// The earlier marks that share a key with `keys`, each once, with their likeness to
        /// `sketch`. `scratch`: a buffer to reuse.
        func kin(of keys: [UInt64], sketch: [UInt32], scratch found: inout [UInt64]) -> [EarlierMark] {
            found.removeAll(keepingCapacity: true)
            for (position, key) in keys.enumerated() {
                var serial = latest[key] ?? 0
                while serial >= firstSerial && serial < nextSerial {
                    found.append(serial)
                    let mark = head + Int(serial - firstSerial)
                    // Marks of one rule put the same kind of key at the same place: look there first.
                    let base = mark * keyStride
                    if position < keyCounts[mark] && self.keys[base + position] == key {
                        serial = previous[base + position]
                    } else {
                        serial = (0..<keyCounts[mark]).first { self.keys[base + $0] == key }.map { previous[base + $0] } ?? 0
                    }
                }
            }
            guard !found.isEmpty else { return [] }
            found.sort()
            var kin: [EarlierMark] = []
            for (index, serial) in found.enumerated() where index == 0 || found[index - 1] != serial {
                let mark = head + Int(serial - firstSerial)
                let kept = sketches[(mark * sketchStride)..<(mark * sketchStride + sketchCounts[mark])]
                kin.append(EarlierMark(weight: weights[mark], likeness: EarlierMark.likeness(of: kept, to: sketch)))
            }
            return kin
        }

        mutating func add(keys newKeys: [UInt64], weight: Int, sketch: [UInt32], at: Double) {
            if newKeys.count > keyStride {
                keys = Self.restride(keys, from: keyStride, to: newKeys.count, marks: times.count)
                previous = Self.restride(previous, from: keyStride, to: newKeys.count, marks: times.count)
                keyStride = newKeys.count
            }
            if sketch.count > sketchStride {
                sketches = Self.restride(sketches, from: sketchStride, to: sketch.count, marks: times.count)
                sketchStride = sketch.count
            }
            let serial = nextSerial
            nextSerial += 1
            for index in 0..<keyStride {
                let key = index < newKeys.count ? newKeys[index] : 0
                keys.append(key)
                previous.append(index < newKeys.count ? latest.update(serial, forKey: key) ?? 0 : 0)
            }
            keyCounts.append(newKeys.count)
            sketches.append(contentsOf: sketch)
            if sketch.count < sketchStride { sketches.append(contentsOf: repeatElement(0, count: sketchStride - sketch.count)) }
            sketchCounts.append(sketch.count)
            weights.append(weight)
            times.append(at)
        }

        /// The flat array of `marks` marks of `old` values each, with `new` values each (the
        /// added ones 0). Only when a sender's marks of a rule first carry more keys or a
        /// sketch than before: the first long text after short ones.
        private static func restride<Value: FixedWidthInteger>(_ values: [Value], from old: Int, to new: Int, marks: Int) -> [Value] {
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
        /// Reused by every record under the shard's lock, so a look-up allocates no list of its own.
        var scratch: [UInt64] = []
    }

    /// The most any rule may keep a sender (`RateMark.keep`): four times the largest flood threshold.
    public static let maxMarksPerSender = 400
    public static let maxSenders = 200_000
    /// Marks held in all (a mark is a few hundred bytes: its keys and sketch).
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

    /// One message's marks are one sender's, so they take one lock.
    public func record(_ marks: [RateMark], completion: @escaping @Sendable ([[EarlierMark]]) -> Void) {
        guard let sender = marks.first?.userID else { return completion([]) }
        precondition(marks.allSatisfy { $0.userID == sender }, "a message's marks are one sender's")
        let found = shard(sender).withLock { state -> [[EarlierMark]] in
            var answers: [[EarlierMark]] = []
            answers.reserveCapacity(marks.count)
            for mark in marks {
                // Changed where it is kept: a copy taken out and put back would copy every mark.
                let (kin, added) = Self.record(mark, in: &state.senders[SenderKey(userID: mark.userID, ruleID: mark.ruleID), default: SenderMarks()],
                                               scratch: &state.scratch)
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
        completion(found)
    }

    /// Returns the mark's kin, and by how many the sender's marks grew (dropped ones counted off).
    private static func record(_ mark: RateMark, in marks: inout SenderMarks, scratch: inout [UInt64]) -> ([EarlierMark], Int) {
        let dropped = marks.dropOlder(than: mark.at - mark.window, keeping: min(max(1, mark.keep), maxMarksPerSender) - 1)
        let kin = marks.kin(of: mark.keys, sketch: mark.sketch, scratch: &scratch)
        marks.add(keys: mark.keys, weight: mark.weight, sketch: mark.sketch, at: mark.at)
        marks.lastAt = mark.at
        marks.window = mark.window
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
