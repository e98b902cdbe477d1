/// Lets one caller at a time through `acquire()` until its `release()`; the others wait
/// suspended, holding no thread.
actor TurnTaking {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the longest waiting caller, if any.
    func release() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
