import BouncerDomain
import BouncerStore
/// `channel_messages`, each channel's message sequences in order, brought up to date with the
/// messages table in batches (migrations/0008_channel_messages.sql says why).
///
/// Every `batchSize` writes, the writer copies the messages sent since the last batch inside the
/// transaction of the group that completes the batch, so that the copy's log pages go out with
/// that group's commit, under the same sync. Readers never depend on the copy being current:
/// `pageSQL` finds the messages not yet copied among the newest rows of `messages`, and the batch
/// size is what bounds that scan.
public final class ChannelIndex: GroupCommitHook {
    public static let hookName = "channel_index"
    public var name: String { Self.hookName }

    /// Writes between two batches. With sends spread over 50 channels, a batch of 512 writes
    /// about 50 pages, where an index entry written with each send wrote about 440. Larger
    /// batches save little more, make their group's commit wait longer, and make readers scan
    /// more rows.
    public static let defaultBatchSize = StoreConfiguration().channelIndexBatchSize

    let batchSize: Int
    /// Writes counted since the last batch; only touched on the writer's queue.
    private var writesSinceBatch = 0

    /// `due`: the first group copies, whatever its size (the copy at open failed).
    init(batchSize: Int = defaultBatchSize, due: Bool = false) {
        self.batchSize = max(1, batchSize)
        self.writesSinceBatch = due ? self.batchSize : 0
    }

    /// Whether `database`'s schema has the table (a store opened with other migrations has not).
    static func exists(in database: SQLiteDatabase) throws -> Bool {
        try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'channel_messages_progress'", as: Int.self) == 1
    }

    /// Counts a group's `writes`, and copies the new messages into the group's open transaction
    /// when a batch is due; returns the copy's error, for the writer to report. Readers still see
    /// every message when a copy fails, but scan more rows until one succeeds.
    ///
    /// No savepoint of its own: one would make SQLite keep a copy of every page the batch
    /// changes (measured: twice the batch's time). None is needed: the copy is one statement
    /// that no constraint can fail (`OR IGNORE`), and an I/O error or a full disk rolls the whole
    /// group back, which the writer finds and reports as it would for any write. A batch that
    /// fails in any other way leaves its messages to the next one.
    public func beforeCommit(writes: Int, _ database: SQLiteDatabase) -> SQLiteError? {
        writesSinceBatch += writes
        guard writesSinceBatch >= batchSize else { return nil }
        writesSinceBatch = 0
        do {
            try Self.catchUp(database)
            return nil
        } catch {
            return error
        }
    }

    /// Copies every message newer than the mark and moves the mark to the newest. Runs inside the
    /// caller's transaction; returns how many messages it copied.
    ///
    /// `OR IGNORE`: a copy that stopped between its two statements left rows the next one copies
    /// again. It also means that no constraint can stop the statement halfway, so SQLite keeps
    /// no statement journal to undo one.
    @discardableResult
    public static func catchUp(_ database: SQLiteDatabase) throws(SQLiteError) -> Int {
        try database.executeCached("""
            INSERT OR IGNORE INTO channel_messages (channel_id, sequence)
            SELECT channel_id, sequence FROM messages WHERE sequence > (SELECT indexed_through FROM channel_messages_progress)
            """)
        let copied = database.changes
        try database.executeCached("""
            UPDATE channel_messages_progress SET indexed_through = coalesce((SELECT max(sequence) FROM messages), indexed_through)
            """)
        return copied
    }

    /// A page of one channel, newest first: `?1` the channel, `?2` the sequence to start below,
    /// `?3` the page size and, with `visibleToViewer`, `?4` the viewer, who sees what
    /// `MessageVisibility` lets them.
    ///
    /// Two parts merged by sequence: the messages not copied yet (a scan of the newest rows) and
    /// the copied ones. Each part comes out in order (the second part names `c.sequence` so that
    /// SQLite reads it in the table's order instead of sorting it), so SQLite merges the two and
    /// stops at the page size. One statement reads both under one snapshot.
    ///
    /// The copied part's upper bound is one expression: given two (below the cursor, at most the
    /// mark), SQLite seeks by one and tests the other row by row, and a page deep in a channel
    /// read every entry between the mark and its cursor. It also checks the message's channel,
    /// so that an entry a delete left behind could not show another channel's message.
    static func pageSQL(columns: [String], visibleToViewer: Bool) -> String {
        func visible(_ table: String) -> String {
            visibleToViewer ? " AND " + MessageVisibility.sqlCondition(prefix: table, viewer: "?4") : ""
        }
        let joinedColumns = columns.map { $0 == "sequence" ? "c.sequence AS sequence" : "m." + $0 }.joined(separator: ", ")
        return """
            SELECT \(columns.joined(separator: ", ")) FROM messages
             WHERE sequence > (SELECT indexed_through FROM channel_messages_progress) AND channel_id = ?1 AND sequence < ?2\(visible(""))
            UNION ALL
            SELECT \(joinedColumns) FROM channel_messages AS c CROSS JOIN messages AS m ON m.sequence = c.sequence
             WHERE c.channel_id = ?1 AND c.sequence < min(?2, (SELECT indexed_through FROM channel_messages_progress) + 1)
               AND m.channel_id = ?1\(visible("m."))
            ORDER BY sequence DESC LIMIT ?3
            """
    }

    /// The page after `?2`, oldest first, read the same two ways: the copied part from the
    /// index, the part not yet copied from the newest rows of `messages`.
    static func pageAfterSQL(columns: [String], visibleToViewer: Bool) -> String {
        func visible(_ table: String) -> String {
            visibleToViewer ? " AND " + MessageVisibility.sqlCondition(prefix: table, viewer: "?4") : ""
        }
        let joinedColumns = columns.map { $0 == "sequence" ? "c.sequence AS sequence" : "m." + $0 }.joined(separator: ", ")
        return """
            SELECT \(joinedColumns) FROM channel_messages AS c CROSS JOIN messages AS m ON m.sequence = c.sequence
             WHERE c.channel_id = ?1 AND c.sequence > ?2 AND c.sequence <= (SELECT indexed_through FROM channel_messages_progress)
               AND m.channel_id = ?1\(visible("m."))
            UNION ALL
            SELECT \(columns.joined(separator: ", ")) FROM messages
             WHERE sequence > max(?2, (SELECT indexed_through FROM channel_messages_progress)) AND channel_id = ?1\(visible(""))
            ORDER BY sequence ASC LIMIT ?3
            """
    }
}
