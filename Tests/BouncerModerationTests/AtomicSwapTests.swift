import BouncerDomain
import Dispatch
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import BouncerModeration

@Suite struct AtomicSwapTests {
    /// Two rule sets that give every word of the text the same action within a set, a different
    /// one between sets: a check that saw half of each would report mixed actions.
    @Test func aCheckSeesOneWholeRuleSet() throws {
        let words = (0..<20).map { "word\($0)x" }
        let bounceSet = try CompiledRuleSet.compile(words.map { RuleDefinition(id: $0, kind: .word, pattern: $0, action: .bounce) })
        let flagSet = try CompiledRuleSet.compile(words.map { RuleDefinition(id: $0, kind: .word, pattern: $0, action: .flag) }
            + [RuleDefinition(id: "extra", kind: .word, pattern: "zzz", action: .flag)])
        let engine = RuleEngine(bounceSet)
        let text = words.joined(separator: " ")
        let mixed = Atomic<Int>(0)
        let checks = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                while !stop.load(ordering: .relaxed) {
                    let verdict = engine.check(text)
                    if Set(verdict.rules.map(\.action)).count != 1 || verdict.rules.count != words.count { mixed.add(1, ordering: .relaxed) }
                    checks.add(1, ordering: .relaxed)
                }
            }
        }
        // Swap back and forth until there have been plenty of swaps and of checks across them.
        // Bounded by counts, not by time: the two checkers keep both cores busy while this runs,
        // so it must end as soon as it has seen enough (under a sanitizer a check is many times
        // slower, and the deadline only bounds a hang).
        let enough = 300
        let clock = ContinuousClock()
        let deadline = clock.now + TestTiming.scaled(.seconds(10))
        var round = 0
        while (round < enough || checks.load(ordering: .relaxed) < enough) && clock.now < deadline {
            engine.replace(with: round % 2 == 0 ? flagSet : bounceSet)
            round += 1
            usleep(100)  // Leave the cores to the checkers (and to the tests running alongside).
        }
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(checks.load(ordering: .relaxed) >= enough)
        #expect(round >= enough)
        #expect(mixed.load(ordering: .relaxed) == 0)
    }
}
