import BouncerService
import BouncerStore

/// `bouncer backup PATH`: a consistent copy of the store, while it serves or not.
enum BackupCommand {
    static let options: [OptionSpec] = ServeCommand.storeOptions.filter { $0.name == "data-dir" } + [
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer backup PATH [--data-dir DIR]

        Writes a consistent copy of the store to PATH (which must not exist), through SQLite's
        online backup API: safe while `bouncer serve` runs and takes writes. To restore, stop the
        service and put the copy in place as <data-dir>/bouncer.sqlite3.

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help, positionals: 1...1) else { return 0 }
        var configuration = ServiceConfiguration()
        ServeCommand.applyStoreOptions(parsed, to: &configuration)
        let result = try Backup.copy(storeAt: configuration.storePath, to: parsed.positionals[0])
        print("backup written to \(result.path) (\(result.bytes) bytes)")
        return 0
    }
}
