import Foundation
import Testing
import BouncerDomain
@testable import BouncerStore

@Suite struct TimestampTests {
    @Test func rfc3339InUTCWithMilliseconds() throws {
        #expect(Timestamp.format(seconds: 1_795_000_000, milliseconds: 7) == "2026-11-18T11:06:40.007Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0.999)) == "1970-01-01T00:00:00.999Z")
        let now = Timestamp.now()
        #expect(now.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(now)")
        let formatted = Timestamp.format(Date())
        #expect(now.prefix(16) == formatted.prefix(16) || now < formatted, "now() agrees with the clock")

        // Appended to bytes already there, the same text and nothing else.
        var line = Array("time=".utf8)
        Timestamp.appendNow(to: &line)
        let appended = String(decoding: line.dropFirst(5), as: UTF8.self)
        #expect(line.starts(with: "time=".utf8))
        #expect(appended.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(appended)")
        #expect(appended >= now && appended.prefix(16) <= Timestamp.now().prefix(16))
    }

    @Test func idsSortInTheOrderTheyWereMade() {
        let ids = (0..<2000).map { _ in TimeOrderedID.make() }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 26 })
        #expect(TimeOrderedID.make(milliseconds: 1) < TimeOrderedID.make(milliseconds: 2))
        // The milliseconds are the first 10 characters, Crockford base32; the rest is from that alphabet.
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        let before = TimeOrderedID.currentMilliseconds()
        let id = TimeOrderedID.make()
        let after = TimeOrderedID.currentMilliseconds()
        let time = id.utf8.prefix(10).reduce(UInt64(0)) { $0 << 5 | UInt64(alphabet.firstIndex(of: $1) ?? 0) }
        #expect(time >= before && time <= after, "\(id)")
        #expect(id.utf8.allSatisfy { alphabet.contains($0) })
    }
}
