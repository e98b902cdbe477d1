import BouncerDomain

/// Where a classifier version is: being trained, ready (with its model file), or failed.
public enum ClassifierState: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case training, ready, failed
}

/// A classifier version as stored, without its model file (which `classifierModel` reads).
/// `attributes`, `languages` and `evaluation` are JSON text.
public struct StoredClassifier: Sendable, Equatable {
    public var id: String
    public var state: ClassifierState
    public var createdAt: String
    public var createdBy: String
    public var baseID: String?
    public var attributes: String
    public var languages: String
    public var examples: Int
    public var evaluation: String?
    public var error: String?
    public var inForce: Bool
    public var finishedAt: String?

    public init(id: String, state: ClassifierState, createdAt: String, createdBy: String, baseID: String?, attributes: String = "[]",
                languages: String = "[]", examples: Int = 0, evaluation: String? = nil, error: String? = nil, inForce: Bool = false,
                finishedAt: String? = nil) {
        self.id = id
        self.state = state
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.baseID = baseID
        self.attributes = attributes
        self.languages = languages
        self.examples = examples
        self.evaluation = evaluation
        self.error = error
        self.inForce = inForce
        self.finishedAt = finishedAt
    }
}

/// How a training ended.
public enum TrainingOutcome: Sendable {
    /// The model file, and what the version's row shows of it (JSON text for the first three).
    case ready(model: [UInt8], attributes: String, languages: String, evaluation: String, examples: Int)
    case failed(reason: String)
}

/// A message a review decided, as training data: its text as its author wrote it, and whether
/// the decision confirmed it (removed, or its author banned) or cleared it (dismissed).
public struct ReviewedText: Sendable, Equatable {
    public var text: String
    public var confirmed: Bool

    public init(text: String, confirmed: Bool) {
        self.text = text
        self.confirmed = confirmed
    }
}

/// The classifier versions trained from moderators' decisions, and the one in force.
public protocol ClassifierRepository: Sendable {
    /// Stores a version being trained; false when another is being trained (one at a time).
    func startTraining(_ classifier: StoredClassifier) async throws -> Bool
    /// Records how a training ended. Keeps at most `keep` versions that are not in force: the
    /// oldest finished ones go.
    func finishTraining(id: String, _ outcome: TrainingOutcome, at: String, keep: Int) async throws
    /// Marks as failed, with `reason`, the trainings started before `before` that never finished
    /// (their instance stopped); returns how many.
    func abandonTrainings(startedBefore before: String, reason: String, at: String) async throws -> Int
    /// Versions newest first, before the id `before`, at most `limit`.
    func classifiers(before: String?, limit: Int) async throws -> [StoredClassifier]
    func classifier(id: String) async throws -> StoredClassifier?
    /// A ready version's model file.
    func classifierModel(id: String) async throws -> [UInt8]?
    /// Puts `id` in force (nil: none, the instances' configured model), advancing the topic
    /// `classifier`; false when `id` is not a ready version. Returns the topic's new version.
    func activateClassifier(id: String?) async throws -> UInt64?
    /// The version in force with its model file (nil: none), and the topic's version, read together.
    func classifierInForce() async throws -> (classifier: StoredClassifier?, model: [UInt8]?, version: UInt64)
    /// The texts of the messages reviews decided, newest decision first, at most `limit`.
    func reviewedTexts(limit: Int) async throws -> [ReviewedText]
}

extension SQLStore {
    private static var classifierColumns: String {
        "id, state, created_at, created_by, base_id, attributes, languages, examples, evaluation, error, in_force, finished_at"
    }

    private static func classifier(_ row: Row) throws -> StoredClassifier {
        StoredClassifier(id: try row.decode("id"), state: try row.decode("state"), createdAt: try row.decode("created_at"),
                         createdBy: try row.decode("created_by"), baseID: try row.decodeIfPresent("base_id"),
                         attributes: try row.decode("attributes"), languages: try row.decode("languages"),
                         examples: Int(try row.decode("examples", as: Int64.self)), evaluation: try row.decodeIfPresent("evaluation"),
                         error: try row.decodeIfPresent("error"), inForce: try row.decode("in_force", as: Int64.self) == 1,
                         finishedAt: try row.decodeIfPresent("finished_at"))
    }

    public func startTraining(_ classifier: StoredClassifier) async throws -> Bool {
        try await write { database in
            guard try database.fetchOne("SELECT 1 FROM classifiers WHERE state = 'training'", []) == nil else { return false }
            try database.execute("""
                INSERT INTO classifiers (id, state, created_at, created_by, base_id) VALUES (?, 'training', ?, ?, ?)
                """, [.text(classifier.id), .text(classifier.createdAt), .text(classifier.createdBy), classifier.baseID.databaseValue])
            return true
        }
    }

    public func finishTraining(id: String, _ outcome: TrainingOutcome, at time: String, keep: Int) async throws {
        try await write { database in
            switch outcome {
            case .ready(let model, let attributes, let languages, let evaluation, let examples):
                try database.execute("""
                    UPDATE classifiers SET state = 'ready', model = ?, attributes = ?, languages = ?, evaluation = ?, examples = ?,
                        finished_at = ? WHERE id = ? AND state = 'training'
                    """, [.blob(model), .text(attributes), .text(languages), .text(evaluation), .integer(Int64(examples)), .text(time), .text(id)])
            case .failed(let reason):
                try database.execute("UPDATE classifiers SET state = 'failed', error = ?, finished_at = ? WHERE id = ? AND state = 'training'",
                                     [.text(reason), .text(time), .text(id)])
            }
            try database.execute("""
                DELETE FROM classifiers WHERE in_force = 0 AND state != 'training' AND id NOT IN
                    (SELECT id FROM classifiers WHERE in_force = 0 AND state != 'training' ORDER BY created_at DESC, id DESC LIMIT ?)
                """, [.integer(Int64(keep))])
        }
    }

    public func abandonTrainings(startedBefore before: String, reason: String, at time: String) async throws -> Int {
        try await write { database in
            try database.execute("UPDATE classifiers SET state = 'failed', error = ?, finished_at = ? WHERE state = 'training' AND created_at < ?",
                                 [.text(reason), .text(time), .text(before)])
            return database.changes
        }
    }

    public func classifiers(before: String?, limit: Int) async throws -> [StoredClassifier] {
        try await read { database in
            if let before {
                return try database.fetchAll("SELECT \(Self.classifierColumns) FROM classifiers WHERE id < ? ORDER BY id DESC LIMIT ?",
                                             [.text(before), .integer(Int64(limit))]).map(Self.classifier)
            }
            return try database.fetchAll("SELECT \(Self.classifierColumns) FROM classifiers ORDER BY id DESC LIMIT ?",
                                         [.integer(Int64(limit))]).map(Self.classifier)
        }
    }

    public func classifier(id: String) async throws -> StoredClassifier? {
        try await read { database in
            try database.fetchOne("SELECT \(Self.classifierColumns) FROM classifiers WHERE id = ?", [.text(id)]).map(Self.classifier)
        }
    }

    public func classifierModel(id: String) async throws -> [UInt8]? {
        try await read { database in
            try database.fetchOne("SELECT model FROM classifiers WHERE id = ? AND state = 'ready'", [.text(id)])?.decode("model", as: [UInt8].self)
        }
    }

    public func activateClassifier(id: String?) async throws -> UInt64? {
        try await write { database in
            if let id {
                guard try database.fetchOne("SELECT 1 FROM classifiers WHERE id = ? AND state = 'ready'", [.text(id)]) != nil else { return nil }
            }
            try database.execute("UPDATE classifiers SET in_force = 0 WHERE in_force = 1", [])
            if let id { try database.execute("UPDATE classifiers SET in_force = 1 WHERE id = ?", [.text(id)]) }
            return try Self.advance(.classifier, database)
        }
    }

    public func classifierInForce() async throws -> (classifier: StoredClassifier?, model: [UInt8]?, version: UInt64) {
        try await read { database in
            let version = try Self.version(of: .classifier, database)
            guard let row = try database.fetchOne("SELECT \(Self.classifierColumns), model FROM classifiers WHERE in_force = 1", []) else {
                return (nil, nil, version)
            }
            return (try Self.classifier(row), try row.decode("model", as: [UInt8].self), version)
        }
    }

    public func reviewedTexts(limit: Int) async throws -> [ReviewedText] {
        try await read { database in
            // One row a message: confirmed when any of its resolved flags removed it or banned its author.
            try database.fetchAll("""
                SELECT coalesce(m.original_text, m.text) AS text,
                       max(CASE WHEN f.resolution IN ('message_removed', 'author_banned') THEN 1 ELSE 0 END) AS confirmed,
                       max(f.resolved_at) AS decided_at
                FROM flags f JOIN messages m ON m.id = f.message_id
                WHERE f.state = 'resolved' AND f.resolution IS NOT NULL
                GROUP BY m.id, m.original_text, m.text
                ORDER BY decided_at DESC
                LIMIT ?
                """, [.integer(Int64(limit))]).compactMap { row in
                let text: String = try row.decode("text")
                return text.isEmpty ? nil : ReviewedText(text: text, confirmed: try row.decode("confirmed", as: Int64.self) == 1)
            }
        }
    }
}
