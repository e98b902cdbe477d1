import Testing
@testable import HTTPServer

@Suite("Event loop: looking for work before sleeping, only while it pays")
struct PollBeforeSleepTests {
    /// A clock that moves `step` nanoseconds each time it is read.
    final class SteppingClock {
        var nanoseconds: UInt64 = 1_000_000
        let step: UInt64
        init(step: UInt64) { self.step = step }
        func now() -> UInt64 {
            nanoseconds += step
            return nanoseconds
        }
    }

    /// One look that finds work on its first poll, or none before the limit.
    static func lookOnce(_ policy: inout PollBeforeSleep, finding: Bool) {
        _ = policy.look(now: SteppingClock(step: 5_000).now) { finding ? 1 : 0 }
    }

    @Test("a limit of zero never looks, however often the loop runs dry")
    func zeroNeverLooks() {
        var policy = PollBeforeSleep(limit: .zero)
        #expect((0..<1_000).allSatisfy { _ in !policy.wantsToLook() })
    }

    @Test("without credit the loop looks once every probe interval of busy passes")
    func probesOnceAnInterval() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        let nothing = SteppingClock(step: 5_000)
        let answers = (0..<((PollBeforeSleep.probeInterval + 1) * 4)).map { _ -> Bool in
            let wants = policy.wantsToLook()
            if wants { _ = policy.look(now: nothing.now) { 0 } }
            return wants
        }
        #expect(answers.filter { $0 }.count == 4)
        #expect(answers[PollBeforeSleep.probeInterval])
        #expect(!answers[PollBeforeSleep.probeInterval - 1])
    }

    @Test("a probe that finds work ready before it looks is not used up: the next pass asks again")
    func aProbeWaitsForAPassThatRunsDry() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        for _ in 0..<PollBeforeSleep.probeInterval { _ = policy.wantsToLook() }
        // Three passes find sockets ready at once (no look), then one runs dry and looks.
        for _ in 0..<3 {
            let wants = policy.wantsToLook()
            #expect(wants)
        }
        let wantsOnTheDryPass = policy.wantsToLook()
        #expect(wantsOnTheDryPass)
        _ = policy.look(now: SteppingClock(step: 5_000).now) { 0 }
        let wantsAfterTheLook = policy.wantsToLook()
        #expect(!wantsAfterTheLook)
    }

    @Test("limits are kept within zero and a second, whatever the configuration says")
    func limitsAreClamped() {
        #expect(PollBeforeSleep(limit: .microseconds(10)).limit == 10_000)
        #expect(PollBeforeSleep(limit: .nanoseconds(1)).limit == 1)
        #expect(PollBeforeSleep(limit: .seconds(-5)).limit == 0)
        #expect(PollBeforeSleep(limit: .seconds(Int64.max)).limit == 1_000_000_000)
        #expect(PollBeforeSleep(limit: .seconds(1.5)).limit == 1_000_000_000)
    }

    @Test("looks that find work keep the loop looking; looks that find none soon stop it")
    func creditFollowsOutcomes() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        for _ in 0..<PollBeforeSleep.probeInterval { _ = policy.wantsToLook() }
        let looksOnProbe = policy.wantsToLook()
        #expect(looksOnProbe)
        Self.lookOnce(&policy, finding: true)
        for _ in 0..<100 {
            let keepsLooking = policy.wantsToLook()
            #expect(keepsLooking)
            Self.lookOnce(&policy, finding: true)
        }
        // Full credit, and each empty look costs twice what a found one earns.
        let emptyLooksBeforeStopping = (PollBeforeSleep.maxCredit + PollBeforeSleep.failureCost - 1) / PollBeforeSleep.failureCost
        for _ in 0..<emptyLooksBeforeStopping {
            let looksOnCredit = policy.wantsToLook()
            #expect(looksOnCredit)
            Self.lookOnce(&policy, finding: false)
        }
        let looksWithoutCredit = policy.wantsToLook()
        #expect(!looksWithoutCredit)
        // Mostly empty looks (one found in three) do not keep it looking.
        var policy2 = PollBeforeSleep(limit: .microseconds(10))
        Self.lookOnce(&policy2, finding: true)
        var looked = 0
        for index in 0..<3_000 where policy2.wantsToLook() {
            looked += 1
            Self.lookOnce(&policy2, finding: index % 3 == 0)
        }
        #expect(looked < 3_000 / 4)
    }

    @Test("a look returns what it found as soon as it finds it, and gives up at the limit")
    func lookStopsAtWorkOrLimit() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        var polls = 0
        let found = policy.look(now: SteppingClock(step: 1_000).now) {
            polls += 1
            return polls == 3 ? 2 : 0
        }
        #expect(found == 2)
        #expect(polls == 3)
        let looksAfterFinding = policy.wantsToLook()
        #expect(looksAfterFinding)  // it found work: credit

        var emptyPolls = 0
        let clock = SteppingClock(step: 1_000)
        let nothing = policy.look(now: clock.now) {
            emptyPolls += 1
            return 0
        }
        #expect(nothing == 0)
        // 10 µs at 1 µs a reading: about ten looks, never an endless one.
        #expect((8...12).contains(emptyPolls))

        // A failed wait (an interrupted one) ends the look at once and is no work found.
        var failing = PollBeforeSleep(limit: .microseconds(10))
        var failedPolls = 0
        let failed = failing.look(now: SteppingClock(step: 1).now) {
            failedPolls += 1
            return -1
        }
        #expect(failed == -1)
        #expect(failedPolls == 1)
        let looks6 = failing.wantsToLook()
        #expect(!looks6)
    }
}
