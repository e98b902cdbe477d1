import Testing
@testable import JSON

/// Objects keep their members in order and find them by name, whether few (compared in turn)
/// or many (through an index made once they outgrow `JSONObject.indexedFrom`).
@Suite struct JSONObjectTests {
    /// `count` members named m0, m1, … with their index as value, in that order.
    private func object(_ count: Int) -> JSONObject {
        var object = JSONObject()
        for index in 0..<count {
            let added = object.insert("m\(index)", .number(JSONNumber(index)))
            #expect(added)
        }
        return object
    }

    @Test(arguments: [0, 1, JSONObject.indexedFrom, JSONObject.indexedFrom + 1, 200])
    func membersAreFoundByNameAndKeepTheirOrder(count: Int) {
        let members = object(count)
        #expect(members.count == count)
        #expect(members.keys == (0..<count).map { "m\($0)" })
        for index in 0..<count { #expect(members["m\(index)"] == .number(JSONNumber(index))) }
        #expect(members["m\(count)"] == nil)
        #expect(members["M0"] == nil)
    }

    @Test(arguments: [1, JSONObject.indexedFrom, JSONObject.indexedFrom + 1, 200])
    func aTakenNameIsRefusedAndChangesNothing(count: Int) {
        var members = object(count)
        let first = members.insert("m0", .null)
        let last = members.insert("m\(count - 1)", .null)
        #expect(!first && !last)
        #expect(members.count == count)
        #expect(members["m0"] == .number(JSONNumber(0)))
    }

    @Test(arguments: [3, JSONObject.indexedFrom + 5])
    func objectsWithTheSameMembersAreEqualInAnyOrder(count: Int) {
        var reversed = JSONObject()
        for index in (0..<count).reversed() { reversed.insert("m\(index)", .number(JSONNumber(index))) }
        #expect(reversed == object(count))
        var changed = reversed
        changed.insert("extra", .null)
        #expect(changed != object(count))
        var other = JSONObject()
        for index in 0..<count { other.insert("m\(index)", .number(JSONNumber(index == 1 ? 99 : index))) }
        #expect(other != object(count))
    }

    @Test func aParsedObjectWithManyMembersRefusesADuplicateAtTheEnd() {
        let members = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array("{\(members),\"k3\":1}".utf8)) }
        #expect((try? StrictJSONParser.parse(Array("{\(members)}".utf8)))?["k49"] == .number(JSONNumber(49)))
    }
}
