import BouncerApplication
import Foundation

/// One command-line option. Every value option also reads an environment variable, and the flag
/// wins over the variable.
struct OptionSpec {
    var name: String
    var environment: String?
    var valueName: String?
    var help: String

    var takesValue: Bool { valueName != nil }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// The parsed arguments of one subcommand.
struct ParsedOptions {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    static func parse(_ arguments: [String], specs: [OptionSpec], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ParsedOptions {
        var parsed = ParsedOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                parsed.positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError(description: "unknown option --\(name)")
            }
            if spec.takesValue {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else if index < arguments.count {
                    parsed.values[name] = arguments[index]
                    index += 1
                } else {
                    throw UsageError(description: "--\(name) needs a value (\(spec.valueName ?? "value"))")
                }
            } else {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                parsed.flags.insert(name)
            }
        }
        for spec in specs where spec.takesValue && parsed.values[spec.name] == nil {
            if let variable = spec.environment, let value = environment[variable], !value.isEmpty {
                parsed.values[spec.name] = value
            }
        }
        // A flag's variable is set with 1 or true (0, false or empty: not set).
        for spec in specs where !spec.takesValue {
            guard let variable = spec.environment, let value = environment[variable]?.lowercased() else { continue }
            switch value {
            case "1", "true": parsed.flags.insert(spec.name)
            case "", "0", "false": break
            default: throw UsageError(description: "\(variable) must be 1, true, 0 or false, not \(value)")
            }
        }
        return parsed
    }

    /// A subcommand's arguments, or nil when `--help` was asked for (and printed): the start of
    /// every command. `positionals` is how many plain arguments the command takes.
    static func forCommand(_ arguments: [String], specs: [OptionSpec], help: String,
                           positionals: ClosedRange<Int> = 0...0) throws -> ParsedOptions? {
        let parsed = try parse(arguments, specs: specs)
        if parsed.flags.contains("help") {
            print(help)
            return nil
        }
        guard positionals.contains(parsed.positionals.count) else {
            if parsed.positionals.count > positionals.upperBound {
                throw UsageError(description: "unexpected argument \(parsed.positionals[positionals.upperBound])")
            }
            throw UsageError(description: "missing argument")
        }
        return parsed
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(description: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }
}

/// The help text for a subcommand's options.
func optionsHelp(_ specs: [OptionSpec]) -> String {
    specs.map { spec in
        var left = "  --\(spec.name)"
        if let valueName = spec.valueName { left += " \(valueName)" }
        let padded = left.padding(toLength: max(left.count + 2, 30), withPad: " ", startingAt: 0)
        var line = padded + spec.help
        if let variable = spec.environment { line += " [\(variable)]" }
        return line
    }.joined(separator: "\n")
}
