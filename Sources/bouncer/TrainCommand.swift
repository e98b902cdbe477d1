import BouncerClassifier
import Foundation

/// `bouncer train`: trains a model from a labelled file, offline, in any language, and writes it
/// as a model file that `bouncer serve --classifier-model` (or an upload) puts to use.
enum TrainCommand {
    static let options: [OptionSpec] = [
        OptionSpec(name: "data", environment: nil, valueName: "FILE", help: "labelled texts: CSV `label,text` (or a header naming `text` and `label`) or JSON lines {\"text\",\"label\",\"attribute\"?} (required)"),
        OptionSpec(name: "out", environment: nil, valueName: "MODEL", help: "where the model file is written (required)"),
        OptionSpec(name: "base", environment: nil, valueName: "MODEL", help: "start from this model file's weights, or `bundled` for the bundled model (default: from zero)"),
        OptionSpec(name: "id", environment: nil, valueName: "NAME", help: "the model's name (default: the output file's name)"),
        OptionSpec(name: "languages", environment: nil, valueName: "TAGS", help: "the data's languages, comma-separated BCP 47 tags (default: en)"),
        OptionSpec(name: "epochs", environment: nil, valueName: "N", help: "passes over the data (default 6)"),
        OptionSpec(name: "hash-bits", environment: nil, valueName: "N", help: "the model has 2^N weights an attribute (default \(FeatureHasher.standardBits))"),
        OptionSpec(name: "learning-rate", environment: nil, valueName: "RATE", help: "Adagrad's step (default 0.25)"),
        OptionSpec(name: "seed", environment: nil, valueName: "N", help: "orders the examples; the same data and seed make the same model (default 2026)"),
        OptionSpec(name: "time-limit", environment: nil, valueName: "SECONDS", help: "give up past this many seconds (default 3600)"),
        OptionSpec(name: "source-name", environment: nil, valueName: "TEXT", help: "where the data came from, kept in the model file"),
        OptionSpec(name: "source-sha256", environment: nil, valueName: "HEX", help: "the SHA-256 of what the data came from"),
        OptionSpec(name: "source-licence", environment: nil, valueName: "TEXT", help: "the data's licence"),
        OptionSpec(name: "created-at", environment: nil, valueName: "TIME", help: "the date written into the model (default: now)"),
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer train --data FILE --out MODEL [options]

        Trains a harm-score model (a logistic model over hashed words and character runs of the
        normalized text) from labelled texts, holding out 10% to calibrate it and 10% to measure
        it, and writes the model file. Texts without an attribute train `toxicity`.

          bouncer train --data de-labelled.csv --out de.bouncer-model --languages de

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help) else { return 0 }
        guard let dataPath = parsed.values["data"] else { throw UsageError(description: "--data is required") }
        guard let outPath = parsed.values["out"] else { throw UsageError(description: "--out is required") }
        let started = ContinuousClock.now
        var trainingOptions = TrainingOptions()
        trainingOptions.epochs = try parsed.int("epochs", in: 1...100) ?? trainingOptions.epochs
        trainingOptions.seed = UInt64(try parsed.int("seed", in: 0...Int.max) ?? Int(trainingOptions.seed))
        if let bits = try parsed.int("hash-bits", in: 10...24) { trainingOptions.hasher = FeatureHasher(bits: bits) }
        if let rate = parsed.values["learning-rate"] {
            guard let value = Float(rate), value > 0, value <= 10 else { throw UsageError(description: "--learning-rate must be a number above 0, at most 10") }
            trainingOptions.learningRate = value
        }
        trainingOptions.deadline = started + .seconds(try parsed.int("time-limit", in: 1...(7 * 24 * 3600)) ?? 3600)

        let base: HarmModel?
        switch parsed.values["base"] {
        case nil: base = nil
        case "bundled": base = BundledModel.model
        case let path?: base = try ModelFile.decode(try readFile(path, limit: ModelFile.maxBytes))
        }
        let bytes = try readFile(dataPath, limit: 4 << 30)
        let texts = try LabelledData.read(bytes)
        log("read \(texts.count) labelled texts from \(dataPath)")
        let examples = ModelTraining.examples(texts)
        log("normalized them in \(seconds(since: started)) s")
        let results = try Trainer(options: trainingOptions).train(examples, base: base, progress: log)
        let languages = (parsed.values["languages"] ?? "en").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        let source = ModelInfo.Source(name: parsed.values["source-name"] ?? URL(fileURLWithPath: dataPath).lastPathComponent,
                                      sha256: parsed.values["source-sha256"], licence: parsed.values["source-licence"], examples: texts.count)
        let command = (["bouncer", "train"] + arguments).joined(separator: " ")
        let info = ModelInfo(id: parsed.values["id"] ?? URL(fileURLWithPath: outPath).deletingPathExtension().lastPathComponent,
                             languages: languages, created_at: parsed.values["created-at"] ?? ISO8601DateFormatter().string(from: Date()),
                             examples: texts.count, sources: (base.map { $0.info.sources } ?? []) + [source], command: command, evaluation: [:])
        let model = ModelTraining.model(results, base: base, hasher: trainingOptions.hasher, info: info)
        try Data(ModelFile.encode(model)).write(to: URL(fileURLWithPath: outPath), options: .atomic)
        for result in results {
            let e = result.evaluation
            print(String(format: "%@: AUC %.4f, precision %.4f, recall %.4f, F1 %.4f at %.2f, on %d held-out texts of %d",
                         result.head.attribute, e.auc, e.precision, e.recall, e.f1, e.threshold, e.held_out, result.examples))
        }
        log("wrote \(outPath) in \(seconds(since: started)) s")
        return 0
    }

    private static func readFile(_ path: String, limit: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UsageError(description: "cannot read \(path)") }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else { throw UsageError(description: "\(path) is larger than \(limit >> 20) MiB") }
        return [UInt8](data)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f", (ContinuousClock.now - start) / .seconds(1))
    }

    private static func log(_ line: String) { standardError("bouncer train: \(line)") }
}
