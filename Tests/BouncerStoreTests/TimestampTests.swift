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

    /// The date worked out from the count of days is gmtime's, across leap days, century years
    /// (1900 and 2100 are not leap years, 2000 is), the ends of months, and times before 1970.
    @Test func datesAreTheCLibrarysWhateverTheSecond() {
        func expected(_ seconds: Int) -> String {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.042Z", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                          parts.tm_hour, parts.tm_min, parts.tm_sec)
        }
        let edges = [0, -1, 59, 86_399, 86_400, -86_400, -86_401, 951_782_399, 951_868_800, 4_107_542_399, 4_107_628_800,
                     -2_203_891_200, -2_208_988_801, 1_709_164_800, 253_402_300_799]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<20_000).map { _ in Int.random(in: -62_135_596_800...253_402_300_799, using: &generator) }
        for seconds in edges + random {
            #expect(Timestamp.format(seconds: seconds, milliseconds: 42) == expected(seconds), "\(seconds)")
        }
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
