import BouncerDomain
import BouncerSQLite
import BouncerStore
import Foundation

// The baseline for the send path: one transaction per message, each committed with
// synchronous=FULL, on the disk under DIR. `StoreBenchmark DIR [SECONDS]`.
let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : FileManager.default.temporaryDirectory.path
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 5 : 5
let path = directory + "/baseline-\(getpid()).sqlite3"
defer {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
let database = try SQLiteStore.openWriter(path: path, configuration: StoreConfiguration())
try database.execute("""
    CREATE TABLE messages (id TEXT NOT NULL UNIQUE, channel_id TEXT NOT NULL, user_id TEXT NOT NULL, text TEXT NOT NULL,
        state TEXT NOT NULL, created_at TEXT NOT NULL)
    """)
let clock = ContinuousClock()
let started = clock.now
var count = 0
while clock.now - started < .seconds(seconds) {
    try database.inTransaction { database in
        try database.execute("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)",
                             [.text(TimeOrderedID.make()), .text("messaging:c\(count % 50)"), .text("user\(count % 100)"),
                              .text("a chat message of some length, number \(count)"), MessageState.delivered.databaseValue, .text(Timestamp.now())])
    }
    count += 1
}
let elapsed = (clock.now - started) / .seconds(1)
print(String(format: "one transaction per message (synchronous=FULL): %.0f messages/s (%d in %.1f s)", Double(count) / elapsed, count, elapsed))
