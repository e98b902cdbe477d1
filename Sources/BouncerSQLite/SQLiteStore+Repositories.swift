import BouncerDomain
import BouncerStore

// The repositories are SQL written once over `SQLStore` (BouncerStore); the SQLite store takes
// them as they are, and keeps its own version where SQLite reads faster another way.
extension SQLiteStore: AppealRepository, StrikeRepository {}
extension SQLiteStore: ChangeVersionRepository {}
extension SQLiteStore: EventRepository {}
extension SQLiteStore: FlagRepository {}
extension SQLiteStore: LocalizationOverrideRepository {}
extension SQLiteStore: MatrixRoomRepository {}
extension SQLiteStore: MessageHistoryRepository {}
extension SQLiteStore: ModerationRepository {}
extension SQLiteStore: RuleStatsRepository {}
extension SQLiteStore: SettingsRepository {}
extension SQLiteStore: StoreHealthRepository, ServiceMetadataRepository {}
extension SQLiteStore: WebhookRepository {}

extension SQLiteStore: RuleRepository {
    /// Read by position, each row straight from the statement: a start reads every rule.
    public static func readAllRules(_ database: SQLiteDatabase) throws -> [StoredRule] {
        var rules: [StoredRule] = []
        try database.forEachRow("SELECT \(matchingColumns) FROM rules ORDER BY id") { statement in
            rules.append(try storedRule(columns: matchingColumnCount) { statement.value(at: Int32($0)) })
        }
        return rules
    }
}

extension SQLiteStore: SQLStore {
    public func read<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await readers.read(work)
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await writer.write(work)
    }

    public func openConnection() throws -> SQLiteDatabase {
        try SQLiteDatabase(path: path, mode: .readOnly)
    }

    /// One process writes a SQLite file, and takes no row locks: the groups serve.
    public func writeApart<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await writer.write(work)
    }
}

extension SQLiteStore: ServiceStore {
    public var location: String { path }

    /// A SQLite file is one instance's.
    public func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)? { nil }
    public var sharedSendRates: (any SharedSendRates)? { nil }
    public var sharedRateLedger: (any RateLedger)? { nil }

    public func backup(to destination: String) throws -> Backup.Result { try Backup.copy(storeAt: path, to: destination) }
    public var backupExtension: String { "sqlite3" }
}

extension SQLiteError: StoreFailure {}

extension SQLiteDatabase: SQLConnection {}
