/// What one committed group of writes looked like, whichever store's writer committed it: the
/// service's metrics and its view of the store's availability read it, the same for both.
public struct CommitReport: Sendable {
    /// The checkpoint that followed the group, when one did (SQLite's write-ahead log).
    public struct Checkpoint: Sendable {
        public var duration: Duration
        /// Frames in the log, and of them copied into the database.
        public var logFrames: Int
        public var checkpointedFrames: Int

        public init(duration: Duration, logFrames: Int, checkpointedFrames: Int) {
            self.duration = duration
            self.logFrames = logFrames
            self.checkpointedFrames = checkpointedFrames
        }
    }

    /// Work that rode in the group's transaction and failed, by its name (the group's writes
    /// still stand).
    public struct HookFailure: Sendable {
        public var hook: String
        public var error: any Error & Sendable

        public init(hook: String, error: any Error & Sendable) {
            self.hook = hook
            self.error = error
        }
    }

    public var size: Int
    public var duration: Duration
    /// Why the group failed, when it did (every write of it was told so).
    public var error: (any Error & Sendable)?
    public var checkpoint: Checkpoint?
    public var hookFailures: [HookFailure]

    public init(size: Int, duration: Duration, error: (any Error & Sendable)?, checkpoint: Checkpoint? = nil, hookFailures: [HookFailure] = []) {
        self.size = size
        self.duration = duration
        self.error = error
        self.checkpoint = checkpoint
        self.hookFailures = hookFailures
    }
}
