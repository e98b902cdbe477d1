/// How each non-ASCII character folds before matching: the table `scripts/generate-folding-table.py`
/// writes into `FoldingTable.swift`, decoded once into a dictionary on first use.
enum FoldingTable {
    static let map: [UInt32: [UInt8]] = {
        var map: [UInt32: [UInt8]] = [:]
        map.reserveCapacity(5000)
        for entry in encoded.split(separator: " ") {
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let scalar = UInt32(parts[0], radix: 16) else { continue }
            var bytes: [UInt8] = []
            var hex = parts[1].utf8.makeIterator()
            while let high = hex.next(), let low = hex.next() {
                bytes.append(UInt8(hexDigit(high) << 4 | hexDigit(low)))
            }
            map[scalar] = bytes
        }
        return map
    }()

    private static func hexDigit(_ byte: UInt8) -> UInt8 {
        byte <= 57 ? byte - 48 : byte - 87
    }
}
