import Testing
@testable import HTTPServer

@Suite struct RequestIDTests {
    @Test func madeIDsShareTheProcessPrefixAndCountInBase36() throws {
        let ids = (0..<2000).map { _ in RequestID.make() }
        let prefixes = Set(ids.map { $0.split(separator: "-")[0] })
        #expect(prefixes.count == 1)
        // Counters of other tests' requests may fall in between: each is larger than the last.
        let counters = try ids.map { try #require(UInt64($0.split(separator: "-")[1], radix: 36)) }
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy(RequestID.isValid))
        // The digits are base 36 in lower case, most significant first, with no leading zeros.
        for (id, counter) in zip(ids, counters) {
            #expect(id.split(separator: "-")[1] == String(counter, radix: 36))
        }
    }
}
