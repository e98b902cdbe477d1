/// The ranges a webhook may not reach: every entry of IANA's IPv4 and IPv6 Special-Purpose
/// Address Registries (RFC 6890 and the RFCs since), with multicast, the reserved class E and
/// deprecated site-local ranges. Documentation and benchmarking ranges are among them: nothing
/// public answers there, and a host can be given one of them as its own address.
package enum SpecialPurposeAddresses {
    /// A range: its first bytes, and how many leading bits of an address must match them.
    package struct Range: Sendable {
        package var prefix: [UInt8]
        package var bits: Int
        package var name: String

        package func contains(_ address: [UInt8]) -> Bool {
            var remaining = bits
            for (index, byte) in prefix.enumerated() where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
                guard address[index] & mask == byte & mask else { return false }
                remaining -= 8
            }
            return true
        }
    }

    package static let ipv4: [Range] = [
        Range(prefix: [0], bits: 8, name: "this network"),
        Range(prefix: [10], bits: 8, name: "private"),
        Range(prefix: [100, 64], bits: 10, name: "shared address space"),
        Range(prefix: [127], bits: 8, name: "loopback"),
        Range(prefix: [169, 254], bits: 16, name: "link-local"),
        Range(prefix: [172, 16], bits: 12, name: "private"),
        Range(prefix: [192, 0, 0], bits: 24, name: "IETF protocol assignments"),
        Range(prefix: [192, 0, 2], bits: 24, name: "documentation (TEST-NET-1)"),
        Range(prefix: [192, 31, 196], bits: 24, name: "AS112-v4"),
        Range(prefix: [192, 52, 193], bits: 24, name: "AMT"),
        Range(prefix: [192, 88, 99], bits: 24, name: "deprecated 6to4 relay anycast"),
        Range(prefix: [192, 168], bits: 16, name: "private"),
        Range(prefix: [192, 175, 48], bits: 24, name: "direct delegation AS112"),
        Range(prefix: [198, 18], bits: 15, name: "benchmarking"),
        Range(prefix: [198, 51, 100], bits: 24, name: "documentation (TEST-NET-2)"),
        Range(prefix: [203, 0, 113], bits: 24, name: "documentation (TEST-NET-3)"),
        Range(prefix: [224], bits: 4, name: "multicast"),
        Range(prefix: [240], bits: 4, name: "reserved, and the limited broadcast address"),
    ]

    package static let ipv6: [Range] = [
        // ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible
        // form; ::ffff:0:0/96 (IPv4-mapped) is judged as the IPv4 address it carries.
        Range(prefix: [UInt8](repeating: 0, count: 12), bits: 96, name: "unspecified, loopback, IPv4-compatible"),
        Range(prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], bits: 96, name: "IPv4-translated"),
        Range(prefix: [0x00, 0x64, 0xff, 0x9b], bits: 32, name: "IPv4/IPv6 translation (64:ff9b::/96, 64:ff9b:1::/48)"),
        Range(prefix: [0x01, 0x00, 0, 0, 0, 0, 0, 0], bits: 64, name: "discard-only"),
        Range(prefix: [0x01, 0x00, 0, 0, 0, 0, 0, 1], bits: 64, name: "dummy prefix"),
        Range(prefix: [0x20, 0x01, 0x00], bits: 23, name: "IETF protocol assignments (Teredo, benchmarking, ORCHIDv2, ...)"),
        Range(prefix: [0x20, 0x01, 0x0d, 0xb8], bits: 32, name: "documentation"),
        Range(prefix: [0x20, 0x02], bits: 16, name: "6to4"),
        Range(prefix: [0x26, 0x20, 0x00, 0x4f, 0x80, 0x00], bits: 48, name: "direct delegation AS112"),
        Range(prefix: [0x3f, 0xff, 0x00], bits: 20, name: "documentation"),
        Range(prefix: [0x5f, 0x00], bits: 16, name: "segment routing (SRv6) SIDs"),
        Range(prefix: [0xfc], bits: 7, name: "unique-local"),
        Range(prefix: [0xfe, 0x80], bits: 10, name: "link-local"),
        Range(prefix: [0xfe, 0xc0], bits: 10, name: "site-local (deprecated)"),
        Range(prefix: [0xff], bits: 8, name: "multicast"),
    ]

    /// The special-purpose range `address` (4 or 16 bytes) is in, or nil for a public address.
    package static func range(of address: [UInt8]) -> Range? {
        switch address.count {
        case 4:
            return ipv4.first { $0.contains(address) }
        case 16:
            // An IPv4 address mapped into IPv6 is judged as IPv4.
            if address.prefix(10).allSatisfy({ $0 == 0 }) && address[10] == 0xff && address[11] == 0xff {
                return range(of: Array(address.suffix(4)))
            }
            return ipv6.first { $0.contains(address) }
        default:
            return Range(prefix: [], bits: 0, name: "not an address")
        }
    }
}
