import BouncerDomain
/// What the service holds a store by, whichever it is: every repository, and closing.
public protocol ServiceStore: MessageRepository, FlagRepository, RuleRepository, ModerationRepository, SettingsRepository,
    LocalizationOverrideRepository, StoreHealthRepository, ServiceMetadataRepository, ChangeVersionRepository, EventRepository,
    WebhookRepository, RuleStatsRepository, MessageHistoryRepository, MatrixRoomRepository, AppealRepository, StrikeRepository,
    ClassifierRepository {
    /// Where the store is, for logs: a file's path, or a server's host and database (never a password).
    var location: String { get }
    /// Starts calling `changed` soon after any instance commits a change of shared state (a
    /// topic's version advanced), until the watch returned is stopped. Nil when no other instance
    /// can share the store: then every change is made, and put in force, by this one.
    func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)?
    /// Send-rate buckets every instance counts in; nil when the store is one instance's.
    var sharedSendRates: (any SharedSendRates)? { get }
    /// Where rate rules keep senders' recent messages when instances share the store; nil when
    /// the store is one instance's (it keeps them in memory).
    var sharedRateLedger: (any RateLedger)? { get }
    /// Writes a consistent copy of the store to `destination` (which must not exist): a file
    /// whose name ends with `backupExtension`.
    func backup(to destination: String) throws -> Backup.Result
    var backupExtension: String { get }
    /// Finishes the queued writes and closes every connection.
    func close()
}

/// A running `watchChanges`.
public protocol ChangeWatch: Sendable {
    func stop()
}
