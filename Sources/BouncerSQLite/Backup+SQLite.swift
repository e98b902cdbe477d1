import BouncerStore
import CSQLite
import Foundation

/// SQLite's copies, through its online backup API: the copy is one snapshot of the file, taken in
/// one step from a read transaction while writes go on.
extension Backup {
    /// Copies the store at `source` to `destination` (which must not exist yet). The copy is
    /// written beside it first and renamed into place once complete and synced, so a failed or
    /// interrupted backup never leaves a partial file under the destination's name.
    public static func copy(storeAt source: String, to destination: String) throws -> Result {
        guard !FileManager.default.fileExists(atPath: destination) else { throw Failure.exists(destination) }
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let from = try SQLiteDatabase(path: source, mode: .readOnly)
            let to = try SQLiteDatabase(path: partial, mode: .readWrite)
            guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
                throw Failure.failed(String(cString: sqlite3_errmsg(to.handle)))
            }
            var status: Int32
            repeat {
                // Every page in one step, inside one read transaction: a snapshot that writes
                // made meanwhile do not touch (in WAL mode they never wait for a reader). Copied a
                // few hundred pages at a time, the backup started over whenever another
                // connection committed between two steps, and under steady writes never finished.
                status = sqlite3_backup_step(backup, -1)
                if status == SQLITE_BUSY || status == SQLITE_LOCKED { usleep(5_000) }
            } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
            let finish = sqlite3_backup_finish(backup)
            guard status == SQLITE_DONE, finish == SQLITE_OK else {
                throw Failure.failed(String(cString: sqlite3_errstr(status == SQLITE_DONE ? finish : status)))
            }
            // The copy stands alone: not in WAL mode, checked, and synced before it is named.
            try to.execute("PRAGMA journal_mode = DELETE")
            guard try to.fetchValue("PRAGMA integrity_check", as: String.self) == "ok" else {
                throw Failure.failed("the copy does not pass integrity_check")
            }
            to.close()
            from.close()
            let fd = open(partial, O_RDONLY)
            if fd >= 0 {
                fsync(fd)
                close(fd)
            }
            guard rename(partial, destination) == 0 else { throw Failure.failed(String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        return Result(path: destination, bytes: bytes)
    }
}
