@testable import BouncerStore
import Testing

@Suite struct KeyIndexTests {
    /// Against a Dictionary, through inserts, updates and removals that collide on purpose (keys
    /// that share their low bits probe the same slots).
    @Test("it agrees with a Dictionary through collisions, removals and growth")
    func agreesWithADictionary() {
        var index = KeyIndex()
        var reference: [UInt64: UInt64] = [:]
        var state: UInt64 = 12345
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
        for step in 0..<20_000 {
            // Few distinct low bits: long probe runs, and removals in the middle of them.
            let key = (next() % 64) | (next() % 4) << 40
            let value = UInt64(step + 1)
            if next() % 3 == 0, let held = reference[key] {
                index.remove(key, ifHolding: held)
                reference[key] = nil
            } else if next() % 5 == 0 {
                index.remove(key, ifHolding: value)  // holds another value: nothing happens
            } else {
                #expect(index.update(value, forKey: key) == reference.updateValue(value, forKey: key))
            }
            if step % 97 == 0 {
                for probe in reference.keys { #expect(index[probe] == reference[probe]) }
                #expect(index.count == reference.count)
            }
        }
        for probe in 0..<UInt64(256) where reference[probe] == nil { #expect(index[probe] == nil) }
    }
}
