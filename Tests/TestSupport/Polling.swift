/// Waits until `condition` holds, checking every 5 ms, for at most `timeout` (stretched under
/// sanitizers, see `TestTiming`). Returns whether it held: for what another thread reports.
public func waitUntil(_ timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try await Task.sleep(for: .milliseconds(5))
    }
    return true
}
