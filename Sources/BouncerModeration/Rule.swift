import BouncerDomain

extension RuleDefinition {
    /// Whether the rule applies to messages in `channel` (nil: every rule applies). Inlinable,
    /// as the sender's check is: both are asked of every rate rule for every message.
    @inlinable
    public func applies(to channel: String?) -> Bool {
        guard let channel else { return true }
        return channels.contains { ChannelGlob.matches($0, channel) }
    }
}

@usableFromInline
enum ChannelGlob {
    /// `*` matches any run of characters; everything else matches itself.
    @usableFromInline
    static func matches(_ pattern: String, _ channel: String) -> Bool {
        if pattern == "*" { return true }
        guard pattern.utf8.contains(UInt8(ascii: "*")) else { return pattern == channel }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(channel)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.firstRange(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(parts.last!) && rest.count >= parts.last!.count
    }
}
