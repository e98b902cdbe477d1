import BouncerApplication
import BouncerPostgres
import BouncerSQLite
import BouncerService
import BouncerStore

/// `bouncer migrate`: applies pending migrations and exits; `--status` lists them.
enum MigrateCommand {
    static let options: [OptionSpec] = ServeCommand.storeOptions + [
        OptionSpec(name: "status", environment: nil, valueName: nil, help: "list every migration and whether it is applied"),
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer migrate [--status] [options]

        Applies pending migrations to the store, each in its own transaction, and exits. Refuses
        to run when an applied migration's file was changed or the store is newer than this binary.

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help) else { return 0 }
        var configuration = ServiceConfiguration()
        ServeCommand.applyStoreOptions(parsed, to: &configuration)
        let migrations = try loadMigrations(configuration)
        let showStatus = parsed.flags.contains("status")
        let (statuses, applied, location): ([Migrator.Status], [Migration], String)
        if let url = configuration.databaseURL {
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            let migrator = PostgresMigrator(migrations: migrations)
            statuses = showStatus ? try migrator.status(of: connection) : []
            applied = showStatus ? [] : try migrator.migrate(connection)
            location = PostgresStore.redacted(url)
        } else {
            let database = try SQLiteStore.openWriter(path: configuration.storePath, configuration: configuration.store)
            defer { database.close() }
            let migrator = Migrator(migrations: migrations)
            statuses = showStatus ? try migrator.status(of: database) : []
            applied = showStatus ? [] : try migrator.migrate(database)
            location = configuration.storePath
        }
        if showStatus {
            for status in statuses {
                let version = String(status.version).leftPadded(to: 4)
                print("\(version) \(status.name) \(status.state.rawValue)\(status.appliedAt.map { " \($0)" } ?? "")")
            }
        } else if applied.isEmpty {
            print("store \(location) is up to date")
        } else {
            for migration in applied { print("applied \(migration.fileName)") }
        }
        return 0
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
