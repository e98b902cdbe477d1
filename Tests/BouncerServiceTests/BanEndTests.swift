import Testing
import BouncerStore

/// A review's `ban_author` gives the moderator's ban unless the strike policy has just given one
/// at least as long: ban ends compared as times, a ban without an end the longest.
@Suite struct BanEndTests {
    @Test func aBanWithoutAnEndIsTheLongest() {
        #expect(PlannedBan.ends("2026-12-06T10:00:00.000Z", before: nil))
        #expect(!PlannedBan.ends(nil, before: "2026-12-06T10:00:00.000Z"))
        #expect(!PlannedBan.ends(nil, before: nil), "two bans for ever: the policy's stands")
    }

    @Test func endsCompareAsTimes() {
        #expect(PlannedBan.ends("2026-12-06T10:00:00.000Z", before: "2026-12-06T11:00:00.000Z"))
        #expect(!PlannedBan.ends("2026-12-07T10:00:00.000Z", before: "2026-12-06T11:00:00.000Z"))
        #expect(!PlannedBan.ends("2026-12-06T10:00:00.000Z", before: "2026-12-06T10:00:00.000Z"), "as long: the policy's stands")
    }
}
