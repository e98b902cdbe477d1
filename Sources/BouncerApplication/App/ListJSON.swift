import JSON

/// A list response built from items already in JSON: `{"<name>": [...], "next_cursor": ...}`,
/// as `ListResponse` encodes one, for lists whose items are written by hand.
package enum ListJSON {
    /// `extra`: more members, each with its leading comma.
    package static func make(_ name: String, _ items: [[UInt8]], next: String?, extra: [UInt8] = []) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(64 + extra.count + items.reduce(0) { $0 + $1.count + 1 })
        json.append(contentsOf: "{\"\(name)\":[".utf8)
        for (index, item) in items.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: item)
        }
        json.append(contentsOf: #"],"next_cursor":"#.utf8)
        json.append(contentsOf: (next.map(JSONText.quoted) ?? "null").utf8)
        json.append(contentsOf: extra)
        json.append(UInt8(ascii: "}"))
        return json
    }
}
