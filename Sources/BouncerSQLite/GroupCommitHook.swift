import BouncerStore
import CSQLite

/// Work that rides in every group's transaction, after the group's writes and before its
/// COMMIT, so that its pages go out under the group's sync: a table derived from the writes,
/// kept in step in batches (`ChannelIndex`). Called only on the writer's queue. Its failure
/// does not fail the group's writes, unless SQLite rolled the transaction back under it; it is
/// reported with the group.
public protocol GroupCommitHook: AnyObject {
    /// Names the hook in `CommitReport.hookFailures`.
    var name: String { get }
    /// Runs in the group's open transaction, after its `writes` writes.
    func beforeCommit(writes: Int, _ database: SQLiteDatabase) -> SQLiteError?
}
