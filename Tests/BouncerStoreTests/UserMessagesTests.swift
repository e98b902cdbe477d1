import BouncerDomain
import Testing
import TestSupport
@testable import BouncerStore

/// A user's messages are read a bounded stretch of the store at a time (`UserMessagesPage`).
@Suite struct UserMessagesTests {
    @Test func eachPageLooksThroughItsWindowAndSaysWhereItStopped() async throws {
        let directory = try TemporaryDirectory()
        let store = try ChannelIndexTests.openStore(directory, batchSize: 4)
        defer { store.close() }
        // Sequences 1...20; alice sent 1, 2, 3, 16 and 20, in two channels.
        for index in 1...20 {
            let author = [1, 2, 3, 16, 20].contains(index) ? "alice" : "bob"
            try await ChannelIndexTests.send(ChannelIndexTests.message("m\(index)", channel: "messaging:c\(index % 2)", user: author), to: store)
        }
        var pages: [[String]] = []
        var before: Int64?
        repeat {
            let page = try await store.userMessages("alice", before: before, window: 5, limit: 10)
            pages.append(page.messages.map(\.id))
            before = page.lookedDownTo > 1 ? page.lookedDownTo : nil
        } while before != nil && pages.count < 10
        // 16-20, 11-15 (none of hers), 6-10 (none), 1-5: newest first, each once.
        #expect(pages == [["m20", "m16"], [], [], ["m3", "m2", "m1"]])
        // The limit holds inside a window; a user who sent nothing gets empty pages.
        #expect(try await store.userMessages("alice", before: nil, window: 100, limit: 2).messages.map(\.id) == ["m20", "m16"])
        #expect(try await store.userMessages("carol", before: nil, window: 100, limit: 10).messages.isEmpty)
        // A window reaching past the least sequence is clamped, not overflowed.
        #expect(try await store.userMessages("alice", before: Int64.min + 1, window: 5, limit: 10).messages.isEmpty)
    }
}
