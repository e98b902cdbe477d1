import BouncerStore

/// What every chat server's route works with: its settings, the send path, and what a sender's
/// message is checked against before it is judged (bans and send rates).
struct IntegrationContext: Sendable {
    let integrations: Integrations
    let messages: MessagesRoutes
    let bans: BanList
    let sendLimiter: RateLimiter
    let sharedSendRates: (any SharedSendRates)?
    let localization: Localization
    let metrics: Metrics

    /// Spends one of `userID`'s send tokens: nil when allowed, else the seconds until one is back.
    func takeSendToken(_ userID: String) async -> Int? {
        await Routes.takeSendToken(userID, sendLimiter, sharedSendRates)
    }
}
