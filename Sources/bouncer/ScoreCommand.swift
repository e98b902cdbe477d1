import BouncerClassifier
import BouncerService
import Foundation
import JSON

/// `bouncer score`: scores texts with a model, offline: to try a model trained with
/// `bouncer train` before putting it in force, or to measure it on a labelled set of one's own.
enum ScoreCommand {
    static let options: [OptionSpec] = [
        OptionSpec(name: "model", environment: nil, valueName: "MODEL", help: "a model file, or `bundled` (the default)"),
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer score [--model MODEL] < texts.jsonl > scores.jsonl

        Reads one JSON string a line (a text) from standard input and writes, for each, one line
        of JSON with the model's score for each attribute: {"toxicity":0.93}.

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help) else { return 0 }
        // Read as `serve --harm-model` reads it.
        var configuration = ServiceConfiguration()
        configuration.harmModel = parsed.values["model"] ?? "bundled"
        guard let model = try configuration.loadHarmModel() else { throw UsageError(description: "--model none scores nothing") }
        var output: [UInt8] = []
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            guard case .string(let text)? = try? StrictJSONParser.parse(Array(line.utf8)) else {
                standardError("bouncer score: line \(lineNumber) is not a JSON string")
                return 65
            }
            let scores = model.scores(text)
            output.append(UInt8(ascii: "{"))
            for (index, attribute) in model.attributes.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(attribute, to: &output)
                output.append(UInt8(ascii: ":"))
                JSONText.appendNumber(scores[index], to: &output)
            }
            output.append(contentsOf: "}\n".utf8)
            if output.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(output))
                output.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(output))
        return 0
    }
}
