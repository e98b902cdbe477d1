import Locking

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

    public init(userID: String, ruleID: String, keys: [UInt64], weight: Int, sketch: [UInt32], at: Double, window: Double) {
        self.userID = userID
        self.ruleID = ruleID
        self.keys = keys
        self.weight = weight
        self.sketch = sketch
        self.at = at
        self.window = window
    }
}

/// An earlier message's mark, as a record finds it.
public struct EarlierMark: Sendable, Equatable {
    public var weight: Int
    public var sketch: [UInt32]

    public init(weight: Int, sketch: [UInt32]) {
        self.weight = weight
        self.sketch = sketch
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
/// sends again, and by a sweep of every sender at most each `sweepInterval`; a sender keeps at
/// most `maxMarksPerSender` marks a rule, and the ledger at most `maxSenders` senders (the
/// longest quiet go first).
public final class MemoryRateLedger: RateLedger {
    private struct Entry {
        var serial: UInt64
        var keys: [UInt64]
        var weight: Int
        var sketch: [UInt32]
        var at: Double
    }

    private struct SenderMarks {
        var entries: [Entry] = []
        /// Serials of the entries under each key: a message's kin are found by its keys, not by
        /// a look at every earlier message.
        var byKey: [UInt64: [UInt64]] = [:]
        var lastAt: Double = 0
        var window: Double = 0

        mutating func dropOlder(than cutoff: Double, keeping limit: Int) {
            var dropped = 0
            while dropped < entries.count, entries[dropped].at < cutoff || entries.count - dropped > limit { dropped += 1 }
            guard dropped > 0 else { return }
            for entry in entries.prefix(dropped) {
                for key in entry.keys {
                    byKey[key]?.removeAll { $0 == entry.serial }
                    if byKey[key]?.isEmpty == true { byKey[key] = nil }
                }
            }
            entries.removeFirst(dropped)
        }
    }

    private struct State {
        var senders: [String: SenderMarks] = [:]
        var nextSerial: UInt64 = 0
        var lastSweep: Double = 0
    }

    public static let maxMarksPerSender = 256
    public static let maxSenders = 200_000
    static let sweepInterval = 10.0

    private let state = Locked(State())

    public init() {}

    public var senderCount: Int { state.withLock { $0.senders.count } }

    public func record(_ marks: [RateMark], completion: @escaping @Sendable ([[EarlierMark]]) -> Void) {
        let found = state.withLock { state -> [[EarlierMark]] in
            var answers: [[EarlierMark]] = []
            for mark in marks {
                let sender = mark.userID + "\u{0}" + mark.ruleID
                var marks = state.senders[sender] ?? SenderMarks()
                marks.dropOlder(than: mark.at - mark.window, keeping: Self.maxMarksPerSender - 1)
                var kin = Set<UInt64>()
                for key in mark.keys { kin.formUnion(marks.byKey[key] ?? []) }
                answers.append(marks.entries.filter { kin.contains($0.serial) }.map { EarlierMark(weight: $0.weight, sketch: $0.sketch) })
                state.nextSerial += 1
                marks.entries.append(Entry(serial: state.nextSerial, keys: mark.keys, weight: mark.weight, sketch: mark.sketch, at: mark.at))
                for key in mark.keys { marks.byKey[key, default: []].append(state.nextSerial) }
                marks.lastAt = mark.at
                marks.window = mark.window
                state.senders[sender] = marks
            }
            if let now = marks.last?.at { Self.sweepIfDue(&state, now: now) }
            return answers
        }
        completion(found)
    }

    /// Drops senders whose marks have all expired, and the longest quiet past `maxSenders`.
    private static func sweepIfDue(_ state: inout State, now: Double) {
        guard now - state.lastSweep >= sweepInterval || state.senders.count > maxSenders else { return }
        state.lastSweep = now
        state.senders = state.senders.filter { now - $0.value.lastAt <= $0.value.window }
        if state.senders.count > maxSenders {
            let quietest = state.senders.sorted { $0.value.lastAt < $1.value.lastAt }.prefix(state.senders.count - maxSenders * 9 / 10)
            for (sender, _) in quietest { state.senders[sender] = nil }
        }
    }
}
