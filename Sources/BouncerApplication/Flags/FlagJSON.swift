import BouncerDomain
import BouncerStore
import JSON

/// A flag as the API, its events and the review queue show it.
package enum FlagJSON {
    /// A flag as the API shows it (absent optional members are null).
    package static func json(_ flag: StoredFlag) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(384)
        append(flag, to: &json)
        return json
    }

    /// A flag's JSON appended where it goes: the review queue writes hundreds of flags a page.
    package static func append(_ flag: StoredFlag, to json: inout [UInt8]) {
        // Names are literals that need no escaping: their bytes go in as they are.
        func member(_ name: StaticString, _ value: String?) {
            json.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            if let value { JSONText.appendString(value, to: &json) } else { json.append(contentsOf: "null".utf8) }
        }
        member(#"{"id":"#, flag.id)
        member(#","message_id":"#, flag.messageID)
        member(#","channel_id":"#, flag.channelID)
        member(#","reporter_id":"#, flag.reporterID)
        member(#","reason":"#, flag.reason)
        member(#","details":"#, flag.details)
        member(#","rule_id":"#, flag.ruleID)
        member(#","state":"#, flag.state.rawValue)
        member(#","resolution":"#, flag.resolution)
        member(#","resolved_by":"#, flag.resolvedBy)
        member(#","resolved_at":"#, flag.resolvedAt)
        member(#","created_at":"#, flag.createdAt)
        json.append(contentsOf: #","custom":"#.utf8)
        json.append(contentsOf: (flag.custom ?? "null").utf8)
        json.append(UInt8(ascii: "}"))
    }
}
