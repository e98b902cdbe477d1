import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerModeration
import BouncerStore
import Locking

/// What every chat server's route works with: its settings, the send path, and what a sender's
/// message is checked against before it is judged (bans and send rates).
struct IntegrationContext: Sendable {
    let integrations: Integrations
    let messages: MessageService
    let bans: BanList
    let sendLimiter: RateLimiter
    let sharedSendRates: (any SharedSendRates)?
    let localization: Localization
    let metrics: Metrics
    /// Whether the store takes writes now: a chat server's clean message is answered before its
    /// copy is committed only while it does.
    let availability: StoreAvailability?
    let logger: Logger

    /// Spends one of `userID`'s send tokens: nil when allowed, else the seconds until one is back.
    func takeSendToken(_ userID: String) async -> Int? {
        await Routes.takeSendToken(userID, sendLimiter, sharedSendRates)
    }

    /// What a chat server's message came to: clean (answered before its copy was committed), or
    /// committed.
    enum Answer: Sendable {
        case clean
        case committed(Submitted)
    }

    /// Submits a chat server's message and returns as soon as the answer is sure. A message no rule
    /// acts on, from a sender under no ban, is answered at once while the store takes writes: the
    /// chat server holds the message, and Bouncer's copy follows in the next group commit (so
    /// Synapse's sends and Stream's hook do not wait for the disk). Anything moderators act on (a
    /// refusal, a flag, a mask, a shadow) is answered once it is committed, and so is every
    /// message while the store is failing, which then fails closed.
    func submit(_ submission: Submission, _ identity: Identity, ban: StoredBan?) async throws -> Answer {
        let answered = Locked(false)
        let early = ban == nil && !(availability?.isUnavailable ?? false)
        let (metrics, logger, availability) = (self.metrics, self.logger, self.availability)
        return try await withCheckedThrowingContinuation { continuation in
            @Sendable func answer(_ result: Result<Answer, any Error>) -> Bool {
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(with: result) }
                return first
            }
            do {
                try messages.submit(submission, identity, ban: ban, onVerdict: { verdict in
                    if early && verdict.action == nil { _ = answer(.success(.clean)) }
                }) { result in
                    if !answer(result.map(Answer.committed)), case .failure(let error) = result {
                        // Counted as a refusal: the next messages wait for their commit (and are
                        // refused) until a write commits again.
                        _ = availability?.problem(for: error)
                        metrics.add(ServiceMetric.integrationCopiesLost)
                        logger.warn("a chat server's clean message, already allowed, could not be kept",
                                    ["message_id": .string(submission.id ?? "-"), "error": .string(String(describing: error))])
                    }
                }
            } catch {
                _ = answer(.failure(error))
            }
        }
    }
}
