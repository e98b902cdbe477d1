import BouncerStore
import Locking

/// The shared send-rate buckets (`send_rate_buckets`), on a connection of their own outside the
/// writer's transactions, so a bucket's row is locked for one statement, not for a commit group.
/// Takes that arrive while a statement runs are counted together in the next one: one statement a
/// group, whatever the number of users, each user's row changed once (by the number of sends it
/// asked for) in user order, so two instances' statements lock rows in the same order and cannot
/// deadlock. The table is unlogged and the connection does not wait for its commits to be flushed:
/// buckets are not worth a disk write each send.
final class PostgresSendRates: SharedSendRates {
    private struct Take: Sendable {
        let user: String
        let rate: Double
        let burst: Double
        let completion: @Sendable (RateDecision) -> Void
    }

    private let session: PostgresSession
    private let pending = PendingWrites<Take>()

    init(url: String) {
        session = PostgresSession(url: url, label: "bouncer.postgres.rates")
    }

    func take(_ user: String, rate: Double, burst: Double, completion: @escaping @Sendable (RateDecision) -> Void) {
        guard rate > 0 else { return completion(.allowed) }
        let accepted = pending.add(Take(user: user, rate: rate, burst: burst, completion: completion)) {
            session.queue.async { self.drain() }
        }
        if !accepted { completion(.allowed) }
    }

    private func drain() {
        while true {
            let group = pending.nextGroup(limit: 1000)
            if group.isEmpty { return }
            // A group normally has one rate; a change of it in between splits the group.
            var byRate: [[Take]] = []
            for take in group {
                if let last = byRate.indices.last, byRate[last][0].rate == take.rate, byRate[last][0].burst == take.burst {
                    byRate[last].append(take)
                } else {
                    byRate.append([take])
                }
            }
            for takes in byRate { decide(takes) }
            pruneIfDue(rate: group[group.count - 1].rate, burst: group[group.count - 1].burst)
        }
    }

    private let pruning = Periodic(every: .seconds(60))

    /// Once a minute, drops the buckets that have refilled whole (the same as no bucket), so the
    /// table holds the users who sent lately, not every user who ever sent.
    private func pruneIfDue(rate: Double, burst: Double) {
        guard pruning.isDue() else { return }
        _ = try? session.runHere { connection in
            try connection.execute("DELETE FROM send_rate_buckets WHERE updated_at < extract(epoch FROM clock_timestamp()) - ?1::float8",
                                   [.real(burst / rate)])
        }
    }

    /// Takes `takes` (one rate and burst) in one statement and answers each; the earliest of a
    /// user's sends get the tokens there are. Should the database fail, every take is allowed:
    /// each instance's own buckets still hold, and a send then fails at the store anyway.
    private func decide(_ takes: [Take]) {
        var wanted: [String: Int] = [:]
        for take in takes { wanted[take.user, default: 0] += 1 }
        let users = wanted.keys.sorted()
        let rate = takes[0].rate, burst = takes[0].burst
        var granted: [String: (count: Int, tokens: Double)] = [:]
        do {
            for start in stride(from: 0, to: users.count, by: Self.chunk) {
                let chunk = users[start..<min(users.count, start + Self.chunk)]
                var arguments: [DatabaseValue] = [.real(burst), .real(rate)]
                for user in chunk { arguments += [.text(user), .integer(Int64(wanted[user] ?? 0))] }
                let rows = try session.runHere { connection in try connection.fetchAll(Self.sql(rows: chunk.count), arguments) }
                for row in rows {
                    let user: String = try row.decode("user_id")
                    granted[user] = (Int(try row.decode("granted", as: Int64.self)), try row.decode("tokens", as: Double.self))
                }
            }
        } catch {
            for take in takes { take.completion(.allowed) }
            return
        }
        for take in takes {
            guard let left = granted[take.user], left.count > 0 else {
                take.completion(.limited(tokens: granted[take.user]?.tokens ?? 0, rate: rate))
                continue
            }
            granted[take.user]?.count -= 1
            take.completion(.allowed)
        }
    }

    private static let chunk = 500

    /// `?1` the burst, `?2` the rate, then (user, sends wanted) pairs. A new user's bucket starts
    /// full; an existing one is refilled for the time since it was last counted (by the
    /// database's clock, which every instance shares), then gives what it can. `granted` is what
    /// this statement gave.
    static func sql(rows: Int) -> String {
        let values = (0..<rows).map { "(?\(3 + 2 * $0)::text, ?\(4 + 2 * $0)::int)" }.joined(separator: ", ")
        let refilled = "least(?1::float8, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * ?2::float8)"
        return """
            INSERT INTO send_rate_buckets AS b (user_id, tokens, updated_at, granted)
            SELECT w.user_id, ?1::float8 - least(w.wanted, floor(?1::float8)), extract(epoch FROM clock_timestamp()),
                   least(w.wanted, floor(?1::float8))
              FROM (VALUES \(values)) AS w (user_id, wanted) ORDER BY w.user_id
            ON CONFLICT (user_id) DO UPDATE SET
                granted = least(excluded.granted, floor(\(refilled))),
                tokens = \(refilled) - least(excluded.granted, floor(\(refilled))),
                updated_at = greatest(b.updated_at, excluded.updated_at)
            RETURNING user_id, granted, tokens
            """
    }

    func close() { session.close() }
}
