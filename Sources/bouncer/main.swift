import BouncerApplication
import BouncerService
import Foundation

let usage = """
    Usage: bouncer [command] [options]

    Bouncer checks chat messages against moderation rules at send time.

    Commands:
      serve      serve the HTTP API (the default when no command is given)
      migrate    apply pending migrations and exit (--status lists them)
      token      print a signed token for a user, to try the API
      backup     write a consistent copy of the store
      train      train a harm-score model from a labelled file
      score      score texts with a harm-score model

    Run `bouncer <command> --help` for a command's options; `bouncer --version` prints the version.
    """

func standardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "serve"
if arguments.first == command { arguments.removeFirst() }

let status: Int32
do {
    switch command {
    case _ where arguments == ["--version"] && command == "serve":
        print("bouncer \(BouncerVersion.current)")
        status = 0
    case _ where arguments == ["--help"] && CommandLine.arguments.count == 2:
        print(usage)
        status = 0
    case "serve":
        status = try await ServeCommand.run(arguments)
    case "migrate":
        status = try MigrateCommand.run(arguments)
    case "token":
        status = try TokenCommand.run(arguments)
    case "backup":
        status = try BackupCommand.run(arguments)
    case "train":
        status = try TrainCommand.run(arguments)
    case "score":
        status = try ScoreCommand.run(arguments)
    case "help":
        print(usage)
        status = 0
    default:
        standardError("bouncer: unknown command \(command)\n\n\(usage)")
        status = 64
    }
} catch let error as UsageError {
    standardError("bouncer: \(error.description)\nRun `bouncer \(command) --help` for the options.")
    status = 64
} catch {
    standardError("bouncer \(command): \(error)")
    status = 1
}
exit(status)
