/// A map from 64-bit keys that are hashes already (a text's fingerprint, a band of its sketch) to
/// non-zero serials: open addressing with linear probing in two flat arrays. A `Dictionary` would
/// hash each key again and keep its entries apart; a rate rule's ledger looks a dozen keys up for
/// every message sent, so this is the hot part of it.
struct KeyIndex {
    private var keys: [UInt64]
    /// 0 marks an empty slot (serials start at 1).
    private var values: [UInt64]
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        keys = [UInt64](repeating: 0, count: size)
        values = [UInt64](repeating: 0, count: size)
    }

    private var mask: Int { values.count - 1 }

    /// The key's own slot: its low bits, which are as good as any in a hash.
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key) & mask }

    private func slot(of key: UInt64) -> Int? {
        var index = home(key)
        while values[index] != 0 {
            if keys[index] == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    subscript(key: UInt64) -> UInt64? {
        slot(of: key).map { values[$0] }
    }

    /// Sets `key` to `value` (not 0) and returns what it held before.
    mutating func update(_ value: UInt64, forKey key: UInt64) -> UInt64? {
        precondition(value != 0, "0 marks an empty slot")
        if let index = slot(of: key) {
            defer { values[index] = value }
            return values[index]
        }
        if (count + 1) * 2 > values.count { grow() }
        var index = home(key)
        while values[index] != 0 { index = (index + 1) & mask }
        keys[index] = key
        values[index] = value
        count += 1
        return nil
    }

    /// Removes `key` if it holds `value`.
    mutating func remove(_ key: UInt64, ifHolding value: UInt64) {
        guard var hole = slot(of: key), values[hole] == value else { return }
        values[hole] = 0
        count -= 1
        // Shift back the entries after it that probed past the hole, so none is cut off from
        // its own slot by an empty one.
        var next = (hole + 1) & mask
        while values[next] != 0 {
            let own = home(keys[next])
            let reachable = hole <= next ? (own <= hole || own > next) : (own <= hole && own > next)
            if reachable {
                keys[hole] = keys[next]
                values[hole] = values[next]
                values[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    private mutating func grow() {
        let (oldKeys, oldValues) = (keys, values)
        keys = [UInt64](repeating: 0, count: oldValues.count * 2)
        values = [UInt64](repeating: 0, count: oldValues.count * 2)
        count = 0
        for (key, value) in zip(oldKeys, oldValues) where value != 0 { _ = update(value, forKey: key) }
    }
}
