import BouncerDomain
import BouncerSQLite
import BouncerStore
import Testing
import TestSupport

/// The visibility rule is written twice, in Swift for one message and as SQL for a page: the
/// two must agree on every state, hidden or not, for the author, another user and a moderator.
@Suite struct MessageVisibilityTests {
    @Test func theSQLConditionAgreesWithTheSwiftRuleForEveryCase() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("visibility.sqlite3"))
        try database.execute("CREATE TABLE messages (state TEXT NOT NULL, hidden INTEGER NOT NULL, user_id TEXT NOT NULL)")
        let viewers = [Viewer(userID: "alice", role: .user), Viewer(userID: "bob", role: .user), Viewer(userID: "mod", role: .moderator)]
        let condition = MessageVisibility.sqlCondition(viewer: "?1")
        var visibleToOthers = 0
        for state in MessageState.allCases {
            for hidden in [false, true] {
                try database.execute("DELETE FROM messages")
                try database.execute("INSERT INTO messages VALUES (?, ?, 'alice')", [state.databaseValue, .integer(hidden ? 1 : 0)])
                for viewer in viewers {
                    let inSwift = MessageVisibility.isVisible(state: state, hidden: hidden, authorID: "alice", to: viewer)
                    let inSQL = try database.fetchValue("SELECT count(*) FROM messages WHERE \(condition)", [.text(viewer.userID)],
                                                        as: Int.self) == 1
                    // Moderators are never filtered in SQL: the pages for them carry no condition.
                    if !viewer.seesEverything {
                        #expect(inSwift == inSQL, "\(state) hidden: \(hidden) for \(viewer.userID)")
                    }
                    #expect(inSwift || !viewer.seesEverything, "moderators see everything")
                    if viewer.userID == "alice" { #expect(inSwift, "authors see their own \(state) message") }
                    if viewer.userID == "bob" && inSwift { visibleToOthers += 1 }
                }
            }
        }
        #expect(visibleToOthers == MessageVisibility.publicStates.count, "others see the public states, and only when not hidden")
    }
}
