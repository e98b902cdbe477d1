import BouncerApplication
import BouncerDomain
import BouncerSQLite
import BouncerService
import BouncerStore
import Foundation

// Fills a store for the moderators' benchmarks: `StoreGenerator DATA_DIR [MESSAGES] [FLAGS] [APPEALS]`
// (default 1,000,000 messages, 100,000 flags and no appeals) over 1,000 channels and 10,000 users,
// with about 60% of flags and appeals left open. Deterministic.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: StoreGenerator DATA_DIR [MESSAGES] [FLAGS] [APPEALS]\n".utf8))
    exit(64)
}
var configuration = ServiceConfiguration()
configuration.dataDirectory = arguments[1]
let messageCount = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let flagCount = arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000
let appealCount = min(messageCount, arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0)

var storeConfiguration = StoreConfiguration()
storeConfiguration.synchronous = .normal
let store = try SQLiteStore(path: configuration.storePath, configuration: storeConfiguration, migrations: try loadMigrations(configuration))
store.close()
let database = try SQLiteStore.openWriter(path: configuration.storePath, configuration: storeConfiguration)

struct Generator {
    var state: UInt64 = 42
    mutating func below(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}
var random = Generator()
let reasons = ["spam", "harassment", "hate", "sexual", "violence", "self_harm", "misinformation", "inappropriate", "other"]
let started = ContinuousClock.now
let baseTime = Date(timeIntervalSinceNow: -30 * 24 * 3600)

func timestamp(_ index: Int, of total: Int) -> String {
    Timestamp.format(baseTime.addingTimeInterval(Double(index) * 30 * 24 * 3600 / Double(max(1, total))))
}

let batch = 50_000
var written = 0
while written < messageCount {
    try database.inTransaction { database in
        let insert = try database.cachedStatement("""
            INSERT INTO messages (id, channel_id, user_id, text, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for index in written..<min(messageCount, written + batch) {
            let time = timestamp(index, of: messageCount)
            try insert.bind([.text(String(format: "gen%08d", index)), .text("messaging:channel\(random.below(1000))"),
                             .text("user\(random.below(10_000))"), .text("generated chat message number \(index), hello there"),
                             (random.below(100) < 97 ? MessageState.delivered : .bounced).databaseValue, .text(time), .text(time)])
            while try insert.step() {}
        }
        try ChannelIndex.catchUp(database)
    }
    written = min(messageCount, written + batch)
    print("messages: \(written)")
}

// Flags: on random messages, one to five reporters each; about 60% still open.
var filed = 0
var flagged = 0
while filed < flagCount {
    try database.inTransaction { database in
        let insert = try database.cachedStatement("""
            INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, state, resolution, created_at, author_id)
            SELECT ?, id, channel_id, ?, ?, ?, ?, ?, user_id FROM messages WHERE id = ?
            """)
        let goal = min(flagCount, filed + batch)
        while filed < goal {
            let message = String(format: "gen%08d", random.below(messageCount))
            let reporters = 1 + random.below(5)
            let open = random.below(100) < 60
            for reporter in 0..<min(reporters, goal - filed) {
                try insert.bind([.text(String(format: "flag%08d", filed)), .text("reporter\(flagged)-\(reporter)"),
                                 .text(reasons[random.below(reasons.count)]), (open ? FlagState.open : .resolved).databaseValue,
                                 open ? .null : .text("dismissed"), .text(timestamp(filed, of: flagCount)), .text(message)])
                while try insert.step() {}
                filed += 1
            }
            flagged += 1
        }
    }
    print("flags: \(filed)")
}
// Appeals: each of a message of its own (a message is appealed once), spread over the store.
var appealed = 0
while appealed < appealCount {
    try database.inTransaction { database in
        let insert = try database.cachedStatement("""
            INSERT INTO appeals (id, target_type, target_id, user_id, reason, state, decided_by, decided_at, created_at)
            SELECT ?, 'message', id, user_id, ?, ?, ?, ?, ? FROM messages WHERE id = ?
            """)
        for index in appealed..<min(appealCount, appealed + batch) {
            let open = random.below(100) < 60
            let time = timestamp(index, of: appealCount)
            try insert.bind([.text(String(format: "appeal%08d", index)), .text("I did not mean it that way (\(index))."),
                             .text(open ? "open" : (random.below(2) == 0 ? "upheld" : "overturned")), open ? .null : .text("bench-moderator"),
                             open ? .null : .text(time), .text(time), .text(String(format: "gen%08d", index * (messageCount / appealCount)))])
            while try insert.step() {}
        }
    }
    appealed = min(appealCount, appealed + batch)
    print("appeals: \(appealed)")
}
try database.execute("ANALYZE")
database.close()
print("store \(configuration.storePath): \(messageCount) messages, \(filed) flags, \(appealed) appeals in \(ContinuousClock.now - started)")
