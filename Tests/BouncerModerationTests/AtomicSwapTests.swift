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
        // Swap back and forth until the checkers have run plenty of checks across the swaps. The
        // deadline only bounds a hang: under a sanitizer a check is many times slower.
        let clock = ContinuousClock()
        let deadline = clock.now + TestTiming.scaled(.seconds(10))
        var round = 0
        while checks.load(ordering: .relaxed) < 3000 && clock.now < deadline {
            engine.replace(with: round % 2 == 0 ? flagSet : bounceSet)
            round += 1
            usleep(100)  // Leave the cores to the checkers (and to the tests running alongside).
        }
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(checks.load(ordering: .relaxed) >= 3000)
        #expect(round > 100)
        #expect(mixed.load(ordering: .relaxed) == 0)
    }
}
