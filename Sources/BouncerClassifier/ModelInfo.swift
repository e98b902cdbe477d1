/// What a model file says of itself besides its weights: where it came from and how good it is.
public struct ModelInfo: Sendable, Equatable, Codable {
    /// A name of the model (`bundled-toxicity-en-1`, or the id of a version trained in service).
    public var id: String
    /// The languages of its training data, as BCP 47 tags (`["en"]`).
    public var languages: [String]
    /// When it was trained (ISO 8601).
    public var created_at: String
    /// How many labelled examples it was trained and evaluated on.
    public var examples: Int
    /// What it was trained from: each source, with its checksum and licence where known.
    public var sources: [Source]
    /// The command that made it.
    public var command: String
    /// Each attribute's evaluation on the share of the data held out from training.
    public var evaluation: [String: Evaluation]

    public struct Source: Sendable, Equatable, Codable {
        public var name: String
        public var sha256: String?
        public var licence: String?
        public var examples: Int

        public init(name: String, sha256: String? = nil, licence: String? = nil, examples: Int) {
            self.name = name
            self.sha256 = sha256
            self.licence = licence
            self.examples = examples
        }
    }

    public init(id: String, languages: [String], created_at: String, examples: Int, sources: [Source], command: String,
                evaluation: [String: Evaluation]) {
        self.id = id
        self.languages = languages
        self.created_at = created_at
        self.examples = examples
        self.sources = sources
        self.command = command
        self.evaluation = evaluation
    }
}
