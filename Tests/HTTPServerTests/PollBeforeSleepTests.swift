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

    @Test("a limit of zero never looks, however often the loop runs dry")
    func zeroNeverLooks() {
        var policy = PollBeforeSleep(limit: .zero)
        #expect((0..<1_000).allSatisfy { _ in !policy.shouldLook() })
    }

    @Test("without credit the loop looks once in every probe interval")
    func probesOnceAnInterval() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        let answers = (0..<(PollBeforeSleep.probeInterval * 4)).map { _ -> Bool in
            let looks = policy.shouldLook()
            if looks { policy.record(foundWork: false) }
            return looks
        }
        #expect(answers.filter { $0 }.count == 4)
        #expect(answers[PollBeforeSleep.probeInterval - 1])
        #expect(!answers[0])
    }

    @Test("looks that find work keep the loop looking; looks that find none soon stop it")
    func creditFollowsOutcomes() {
        var policy = PollBeforeSleep(limit: .microseconds(10))
        for _ in 0..<(PollBeforeSleep.probeInterval - 1) { _ = policy.shouldLook() }
        let looksOnProbe = policy.shouldLook()
        #expect(looksOnProbe)
        policy.record(foundWork: true)
        for _ in 0..<100 {
            let keepsLooking = policy.shouldLook()
            #expect(keepsLooking)
            policy.record(foundWork: true)
        }
        // Full credit, and each empty look costs twice what a found one earns.
        let emptyLooksBeforeStopping = (PollBeforeSleep.maxCredit + PollBeforeSleep.failureCost - 1) / PollBeforeSleep.failureCost
        for _ in 0..<emptyLooksBeforeStopping {
            let looksOnCredit = policy.shouldLook()
            #expect(looksOnCredit)
            policy.record(foundWork: false)
        }
        let looksWithoutCredit = policy.shouldLook()
        #expect(!looksWithoutCredit)
        // Mostly empty looks (one found in three) do not keep it looking.
        var policy2 = PollBeforeSleep(limit: .microseconds(10))
        policy2.record(foundWork: true)
        var looked = 0
        for index in 0..<3_000 where policy2.shouldLook() {
            looked += 1
            policy2.record(foundWork: index % 3 == 0)
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
        let looksAfterFinding = policy.shouldLook()
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
        let looks6 = failing.shouldLook()
        #expect(!looks6)
    }
}
