/// Where rate rules keep each sender's recent marks: in memory for one instance, in the shared
/// database for several (`ServiceStore.sharedRateLedger`).
public protocol RateLedger: Sendable {
    /// Adds `marks` (one message's, any number of rules) and answers, for each in order, the
    /// earlier marks of the same user and rule within its window that share one of its keys, each
    /// earlier message once; or the error that kept the ledger from answering (a shared ledger's
    /// database), which the send then fails with: a message is never judged as if its sender
    /// had sent nothing before. `completion` may run before this returns.
    func record(_ marks: [RateMark], completion: @escaping @Sendable (Result<[[EarlierMark]], any Error>) -> Void)

    /// The same, answered at once by a ledger that never waits (one in memory): a send then
    /// needs no completion made for it. Nil, with nothing recorded, from a ledger that may wait.
    func recordAtOnce(_ marks: [RateMark]) -> [[EarlierMark]]?
}

extension RateLedger {
    public func recordAtOnce(_ marks: [RateMark]) -> [[EarlierMark]]? { nil }
}
