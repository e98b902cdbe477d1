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
        let migrator = Migrator(migrations: try loadMigrations(configuration))
        let database = try SQLiteStore.openWriter(path: configuration.storePath, configuration: configuration.store)
        defer { database.close() }
        if parsed.flags.contains("status") {
            for status in try migrator.status(of: database) {
                let version = String(status.version).leftPadded(to: 4)
                print("\(version) \(status.name) \(status.state.rawValue)\(status.appliedAt.map { " \($0)" } ?? "")")
            }
            return 0
        }
        let applied = try migrator.migrate(database)
        if applied.isEmpty {
            print("store \(configuration.storePath) is up to date")
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
