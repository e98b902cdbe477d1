import BouncerApplication
import BouncerPostgres
import BouncerService
import BouncerStore

/// `bouncer backup PATH`: a consistent copy of the store, while it serves or not.
enum BackupCommand {
    static let options: [OptionSpec] = ServeCommand.storeOptions.filter { ["data-dir", "database-url"].contains($0.name) } + [
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer backup PATH [--data-dir DIR | --database-url URL]

        Writes a consistent copy of the store to PATH (which must not exist): safe while
        `bouncer serve` runs and takes writes.
        SQLite: through SQLite's online backup API. To restore, stop the service and put the copy
        in place as <data-dir>/bouncer.sqlite3.
        PostgreSQL: `pg_dump --format=custom` (installed with postgresql-client). To restore,
        `pg_restore --dbname=URL PATH` into an empty database.

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help, positionals: 1...1) else { return 0 }
        var configuration = ServiceConfiguration()
        ServeCommand.applyStoreOptions(parsed, to: &configuration)
        let destination = parsed.positionals[0]
        let result = try configuration.databaseURL.map { try PostgresDump.dump(url: $0, to: destination) }
            ?? Backup.copy(storeAt: configuration.storePath, to: destination)
        print("backup written to \(result.path) (\(result.bytes) bytes)")
        return 0
    }
}
