import Foundation
import Testing
import TestSupport

/// A review's `ban_author` commits the review, its strike and the ban in one transaction: killed
/// at any moment of a burst of such reviews, the service restarts on the same store with every
/// reviewed message's author banned and struck, never resolved without a ban (the queue no
/// longer lists such a message, so nothing would prompt a retry). Tested as it was found: several
/// clients reviewing at once, SIGKILL at a random moment, a restart, round after round.
@Suite(.oneInstance, .serialized) struct ReviewBanCrashTests {
    static let rounds = 12
    static let messagesPerRound = 64
    static let reviewers = 4

    struct RoundCount {
        var reviewed = 0
        var acknowledged = 0
        var withoutBan: [String] = []
        var withoutStrike: [String] = []
    }

    @Test func aBanAuthorReviewKilledAtAnyMomentLeavesAllOrNothing() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path("data")
        let moderator = try TestTokens.mint("mod", role: "moderator", dataDirectory: data)
        let reporter = try TestTokens.mint("reporter", role: "user", dataDirectory: data)
        var services: [ServiceProcess] = []
        var totals = RoundCount()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<Self.rounds {
            let service = try await blocking { try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"]) }
            services.append(service)
            // Messages of distinct authors, each flagged once: the queue the burst reviews.
            let authors = (0..<Self.messagesPerRound).map { "author-\(round)-\($0)" }
            try await blocking {
                let client = try service.client()
                for (index, author) in authors.enumerated() {
                    let token = try TestTokens.mint(author, role: "user", dataDirectory: data)
                    let sent = try client.request("POST", "/v1/channels/messaging:general/messages",
                                                  headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                                  body: #"{"id":"m-\#(round)-\#(index)","text":"something nasty \#(index)"}"#)
                    precondition(sent.status == 201, "send: \(sent.text)")
                    let flagged = try client.request("POST", "/v1/messages/m-\(round)-\(index)/flag",
                                                     headers: ["Authorization": "Bearer \(reporter)", "Content-Type": "application/json"],
                                                     body: #"{"reason":"harassment"}"#)
                    precondition(flagged.status == 201, "flag: \(flagged.text)")
                }
            }
            // The burst, killed once a random number of reviews has been answered.
            let acknowledged = LockedIDs()
            let killAfter = Int.random(in: 1...(Self.messagesPerRound * 3 / 4), using: &generator)
            let workers = BlockingWorkers(count: Self.reviewers) { worker in
                guard let client = try? service.client() else { return }
                for index in stride(from: worker, to: Self.messagesPerRound, by: Self.reviewers) {
                    guard let reviewed = try? client.request("POST", "/v1/messages/m-\(round)-\(index)/review",
                                                             headers: ["Authorization": "Bearer \(moderator)", "Content-Type": "application/json"],
                                                             body: #"{"decision":"ban_author","note":"crash round \#(round)"}"#) else { return }
                    if reviewed.status == 200 { acknowledged.add("m-\(round)-\(index)") }
                }
            }
            _ = try await waitUntil(.seconds(30)) { acknowledged.count >= killAfter }
            service.signal(SIGKILL)
            await workers.join()
            _ = service.waitForExit(timeout: .seconds(10))

            // Restarted on the same store: every message no longer open was reviewed, and its
            // author must be banned and struck.
            let restarted = try await blocking { try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"]) }
            services.append(restarted)
            let count = try await blocking { try Self.count(restarted, round: round, authors: authors, moderator: moderator) }
            #expect(count.reviewed >= acknowledged.count, "a review answered 200 was lost (round \(round))")
            totals.reviewed += count.reviewed
            totals.acknowledged += acknowledged.count
            totals.withoutBan += count.withoutBan
            totals.withoutStrike += count.withoutStrike
            restarted.signal(SIGTERM)
            _ = restarted.waitForExit(timeout: .seconds(20))
        }
        print("review-ban crash rounds: \(Self.rounds), reviewed \(totals.reviewed) (\(totals.acknowledged) answered before the kill), "
              + "resolved without a ban \(totals.withoutBan.count), without a strike \(totals.withoutStrike.count)")
        #expect(totals.reviewed > 0, "the kills came before any review")
        #expect(totals.withoutBan.isEmpty, "resolved author_banned without a ban: \(totals.withoutBan)")
        #expect(totals.withoutStrike.isEmpty, "resolved author_banned without a strike: \(totals.withoutStrike)")
    }

    /// The round's reviewed messages (no longer in the queue) and which of their authors have no
    /// ban or no strike.
    static func count(_ service: ServiceProcess, round: Int, authors: [String], moderator: String) throws -> RoundCount {
        let client = try service.client()
        let headers = ["Authorization": "Bearer \(moderator)"]
        var open = Set<String>()
        var cursor: String?
        repeat {
            let page = try client.request("GET", "/v1/review-queue?limit=100" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: headers).json
            for item in page?["items"] as? [[String: Any]] ?? [] {
                if let id = (item["message"] as? [String: Any])?["id"] as? String { open.insert(id) }
            }
            cursor = page?["next_cursor"] as? String
        } while cursor != nil
        var banned = Set<String>()
        cursor = nil
        repeat {
            let page = try client.request("GET", "/v1/bans?limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: headers).json
            for ban in page?["bans"] as? [[String: Any]] ?? [] { if let user = ban["user_id"] as? String { banned.insert(user) } }
            cursor = page?["next_cursor"] as? String
        } while cursor != nil
        var count = RoundCount()
        for (index, author) in authors.enumerated() where !open.contains("m-\(round)-\(index)") {
            count.reviewed += 1
            if !banned.contains(author) { count.withoutBan.append(author) }
            let strikes = try client.request("GET", "/v1/users/\(author)/strikes", headers: headers).json
            if (strikes?["active"] as? Int ?? 0) == 0 { count.withoutStrike.append(author) }
        }
        return count
    }
}
