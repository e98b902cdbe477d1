import Testing
@testable import BouncerPostgres

@Suite struct PlaceholderRewriterTests {
    @Test func questionMarksAreNumberedInOrder() {
        #expect(PlaceholderRewriter.numbered("SELECT a FROM t WHERE b = ? AND c > ? LIMIT ?") == "SELECT a FROM t WHERE b = $1 AND c > $2 LIMIT $3")
    }

    @Test func numberedOnesKeepTheirNumber() {
        #expect(PlaceholderRewriter.numbered("WHERE channel_id = ?1 AND sequence < ?2 OR user_id = ?4 AND ?1 = ?1")
                == "WHERE channel_id = $1 AND sequence < $2 OR user_id = $4 AND $1 = $1")
    }

    @Test func literalsIdentifiersAndCommentsAreLeftAlone() {
        let sql = """
            SELECT '?', "odd?name" FROM t -- what? really?
            WHERE a = ? AND b = 'it''s ?'
            """
        #expect(PlaceholderRewriter.numbered(sql) == """
            SELECT '?', "odd?name" FROM t -- what? really?
            WHERE a = $1 AND b = 'it''s ?'
            """)
    }

    @Test func sqlWithoutPlaceholdersIsUnchanged() {
        #expect(PlaceholderRewriter.numbered("SELECT $1::int") == "SELECT $1::int")
    }
}
