/// The kinds of shared state every instance keeps in memory, each with a version in the store
/// (`change_versions`) advanced in the same transaction as each change of it. An instance reloads
/// a kind when the store's version is ahead of the one it has in force, and swaps a reload in only
/// over an older one, so changes finishing in any order leave the latest in force.
public enum ChangeTopic: String, Sendable, CaseIterable {
    case rules, settings, overrides, bans, classifier
}

public protocol ChangeVersionRepository: Sendable {
    /// The version of every topic as last committed.
    func changeVersions() async throws -> [ChangeTopic: UInt64]
}

extension SQLStore {
    public func changeVersions() async throws -> [ChangeTopic: UInt64] {
        try await read { database in
            var versions: [ChangeTopic: UInt64] = [:]
            for row in try database.fetchAll("SELECT topic, version FROM change_versions", []) {
                // A topic this release does not know is a newer release's, sharing the database.
                guard let topic = ChangeTopic(rawValue: try row.decode("topic")) else { continue }
                versions[topic] = UInt64(try row.decode("version", as: Int64.self))
            }
            return versions
        }
    }

    /// Advances `topic`'s version inside a change's transaction and returns the new one. The row
    /// stays locked until the transaction ends, so two changes of one topic, from any instances,
    /// are numbered in the order they commit.
    static func advance(_ topic: ChangeTopic, _ database: Connection) throws -> UInt64 {
        let version = try database.fetchValue("UPDATE change_versions SET version = version + 1 WHERE topic = ? RETURNING version",
                                              [.text(topic.rawValue)], as: Int64.self)
        return UInt64(version ?? 0)
    }

    /// `topic`'s version as the transaction sees it.
    static func version(of topic: ChangeTopic, _ database: Connection) throws -> UInt64 {
        UInt64(try database.fetchValue("SELECT version FROM change_versions WHERE topic = ?", [.text(topic.rawValue)], as: Int64.self) ?? 0)
    }
}
