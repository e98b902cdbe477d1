import Foundation
import Testing
import TestSupport

/// Serialization failures between instances, forced by a trigger on the service's own database
/// (as another instance's commit would cause them): a send that loses twice is retried by Bouncer
/// and created; one that loses every time is a 503 with `Retry-After`, never a 500, nothing of it
/// is kept, and the service goes on.
@Suite(.postgresOnly, .oneInstance)
struct StoreConflictTests {
    @Test func serializationFailuresAreRetriedAndNeverA500() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path("data")
        let token = try TestTokens.mint("alice", dataDirectory: data)
        let service = try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"], instances: 1)
        let url = try #require(service.database?.url)
        _ = try PostgresTestDatabase.psql(url, """
            CREATE SEQUENCE forced_tries;
            CREATE FUNCTION forced_conflict() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.text LIKE 'always loses%' OR (NEW.text LIKE 'loses twice%' AND nextval('forced_tries') <= 2) THEN
                    RAISE EXCEPTION 'could not serialize access due to concurrent update (forced)' USING ERRCODE = '40001';
                END IF;
                RETURN NEW;
            END;
            $$;
            CREATE TRIGGER forced_conflict BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION forced_conflict();
            """)
        let client = try service.client()
        defer { client.close() }
        func send(_ id: String, _ text: String) throws -> RawResponse {
            try client.request("POST", "/v1/channels/messaging:general/messages",
                               headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                               body: #"{"id":"\#(id)","text":"\#(text)"}"#)
        }
        let twice = try send("m-twice", "loses twice, then wins")
        #expect(twice.status == 201, "\(twice.status) \(twice.text)")
        #expect(try PostgresTestDatabase.psql(url, "SELECT last_value FROM forced_tries").trimmingCharacters(in: .whitespacesAndNewlines) == "3")

        let always = try send("m-always", "always loses")
        #expect(always.status == 503, "\(always.status) \(always.text)")
        #expect(always.header("Retry-After") == "1")
        #expect(always.text.contains("store_unavailable"))
        let kept = try PostgresTestDatabase.psql(url, "SELECT count(*) FROM messages WHERE id = 'm-always'")
        #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "nothing of it was kept")

        // The store is up: /readyz says so, and the next send is created.
        #expect(try client.request("GET", "/readyz").status == 200)
        let after = try send("m-after", "an ordinary message")
        #expect(after.status == 201, "\(after.status) \(after.text)")
        let metrics = try client.request("GET", "/metrics").text
        #expect(metrics.contains("bouncer_store_conflicts_total 1"), "the refusal is counted")
    }
}
