import BouncerDomain
import Testing
@testable import BouncerStore

/// Rows decode or throw: a column the row lacks, NULL where a value must be, or a value of
/// another type is an error naming the column, never a default.
@Suite struct RowDecodingTests {
    static let row = Row(columnNames: ["id", "state", "count", "note", "flagged"],
                         values: [.text("m1"), .text("no-such-state"), .text("12"), .null, .integer(1)])

    @Test func aValueOfTheAskedTypeIsRead() throws {
        #expect(try Self.row.decode("id", as: String.self) == "m1")
        #expect(try Self.row.decode("flagged", as: Bool.self))
        #expect(try Self.row.decode(0, as: String.self) == "m1")
        #expect(try Self.row.decodeIfPresent("note", as: String.self) == nil)
    }

    @Test func aMissingColumnThrows() {
        #expect(throws: RowDecodingError(column: "created_at", expected: nil, found: nil)) {
            try Self.row.decode("created_at", as: String.self)
        }
        #expect(throws: RowDecodingError(column: "created_at", expected: nil, found: nil)) {
            try Self.row.decodeIfPresent("created_at", as: String.self)
        }
        #expect(throws: RowDecodingError.self) { try Self.row.decode(9, as: String.self) }
    }

    @Test func nullWhereAValueMustBeThrows() {
        #expect(throws: RowDecodingError(column: "note", expected: "String", found: "NULL")) {
            try Self.row.decode("note", as: String.self)
        }
    }

    @Test func anotherTypeThrowsEvenWhereNullIsAllowed() {
        #expect(throws: RowDecodingError(column: "count", expected: "Int", found: "TEXT")) {
            try Self.row.decodeIfPresent("count", as: Int.self)
        }
    }

    /// The report's case: a message whose state cannot be read was shown as `delivered`.
    @Test func aMessageWhoseStateCannotBeReadIsAnErrorNotDelivered() {
        let error = #expect(throws: RowDecodingError.self) { try Self.row.decode("state", as: MessageState.self) }
        #expect(error?.description == "column state holds TEXT, which does not read as MessageState")
    }
}

/// JSON kept inside a column decodes or throws, as the row around it does: a default there failed
/// open (a rule's channels read as `["*"]` applied it everywhere; roles read as none judged the
/// moderators a rule exempts).
@Suite struct JSONColumnTests {
    @Test func aRulesChannelsDecodeOrThrow() throws {
        #expect(try JSONColumn.channels(#"["*"]"#) == ["*"])
        #expect(try JSONColumn.channels(#"["messaging:general","team:*"]"#) == ["messaging:general", "team:*"])
        for bad in ["not json", "[]", "{}", #"[1,2]"#, #""messaging:general""#, ""] {
            #expect(throws: RowDecodingError.self, "\(bad)") { try JSONColumn.channels(bad) }
        }
    }

    @Test func aRulesExemptRolesDecodeOrThrow() throws {
        #expect(try JSONColumn.roles("[]").isEmpty)
        #expect(try JSONColumn.roles(#"["moderator","admin"]"#) == [.moderator, .admin])
        for bad in ["[", #"["moderator","boss"]"#, "null", #"{"role":"admin"}"#] {
            #expect(throws: RowDecodingError.self, "\(bad)") { try JSONColumn.roles(bad) }
        }
    }

    @Test func aRulesSettingsDecodeOrThrow() throws {
        #expect(try JSONColumn.params(nil, kind: .word) == nil)
        #expect(try JSONColumn.params(#"{"threshold":5,"window_seconds":10}"#, kind: .flood) != nil)
        for bad in ["{", "[]", #"{"threshold":"five","window_seconds":10}"#, #"{"threshold":5}"#] {
            #expect(throws: RowDecodingError.self, "\(bad)") { try JSONColumn.params(bad, kind: .flood) }
        }
    }

    @Test func aWebhooksTypesDecodeOrThrow() throws {
        #expect(try JSONColumn.types(#"["*"]"#) == ["*"])
        #expect(try JSONColumn.types(#"["message.bounced","user.banned"]"#) == ["message.bounced", "user.banned"])
        for bad in ["", "*", #"{"types":["*"]}"#, #"[1]"#] {
            #expect(throws: RowDecodingError.self, "\(bad)") { try JSONColumn.types(bad) }
        }
    }
}
