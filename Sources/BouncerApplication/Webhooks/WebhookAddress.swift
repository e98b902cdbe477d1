import Dispatch
import Foundation
import Glibc
import Locking

/// Which webhook URLs are taken: `http` or `https` with a host, no credentials, at most 2,048
/// bytes; and, unless private addresses are allowed, none whose host is or resolves to an
/// address of a special-purpose range (loopback, private, link-local, shared, documentation,
/// benchmarking and the rest: the service would otherwise be a way into the network it runs in).
package enum WebhookAddress {
    package static let maxLength = 2048

    package enum Refusal: Error, CustomStringConvertible {
        /// Why, its text key (a problem's `error.detail.<key>`) and the values in it.
        case malformed(String, key: String, arguments: [String] = [])
        case privateAddress(String)

        package var description: String {
            switch self {
            case .malformed(let reason, _, _): reason
            case .privateAddress(let host): "\(host) is a loopback or private address"
            }
        }

        package var detailKey: String {
            switch self {
            case .malformed(_, let key, _): key
            case .privateAddress: "webhooks.private_address"
            }
        }

        package var detailArguments: [String] {
            switch self {
            case .malformed(_, _, let arguments): arguments
            case .privateAddress(let host): [host]
            }
        }
    }

    /// Checks the URL's form, and its host when it is an address literal or a name that
    /// resolves now (a name that does not resolve yet, or not within `resolveBudget`, is checked
    /// again at each delivery, where the address connected to is what counts).
    package static func check(_ text: String, allowPrivate: Bool) async throws(Refusal) -> URL {
        guard text.utf8.count <= maxLength else { throw .malformed("`url` is longer than \(maxLength) bytes.", key: "webhooks.url_length", arguments: [String(maxLength)]) }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, let url = components.url else {
            throw .malformed("`url` must be an http or https URL with a host.", key: "webhooks.url_form")
        }
        guard components.user == nil && components.password == nil else { throw .malformed("`url` may not carry credentials.", key: "webhooks.url_credentials") }
        if !allowPrivate, let refusal = await refusal(of: host) { throw refusal }
        return url
    }

    /// How long a registration waits for the name server. A resolver that does not answer (an
    /// unreachable name server retries for ten seconds and more) must not hold the request.
    package static let resolveBudget: DispatchTimeInterval = .seconds(1)
    /// At most this many names are resolved at once; past it a name is left to the delivery's check.
    package static let maxResolving = 8
    private static let resolving = Locked(0)

    /// Why `host` may not be called (it is, or resolves to, an address that is not public), or
    /// nil. `localhost` and address literals are judged at once. A name is resolved on a thread of
    /// its own (getaddrinfo blocks), never one of the tasks', and waited for at most
    /// `resolveBudget`; a name still unresolved then is taken as one that does not resolve yet.
    package static func refusal(of host: String) async -> Refusal? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare.lowercased().hasSuffix(".localhost") { return .privateAddress(host) }
        let literal = resolve(bare, numericOnly: true)
        if !literal.isEmpty { return literal.allSatisfy(isPublic) ? nil : .privateAddress(host) }
        let admitted = resolving.withLock { count in
            guard count < maxResolving else { return false }
            count += 1
            return true
        }
        guard admitted else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Refusal?, Never>) in
            let answered = Locked(false)
            let answer: @Sendable (Refusal?) -> Void = { refusal in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: refusal) }
            }
            DispatchQueue.global().async {
                let addresses = resolve(bare)
                resolving.withLock { $0 -= 1 }
                answer(addresses.allSatisfy(isPublic) ? nil : .privateAddress(host))
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + resolveBudget) { answer(nil) }
        }
    }

    /// The host's addresses, as 4 or 16 bytes each; empty when it does not resolve.
    /// `numericOnly` takes only the forms that spell an address (`10.1`, `0x7f.1` and the
    /// others libc reads as IPv4 too), without asking a name server.
    package static func resolve(_ host: String, numericOnly: Bool = false) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry?.pointee {
            if current.ai_family == AF_INET, let raw = current.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    addresses.append(withUnsafeBytes(of: address.pointee.sin_addr) { Array($0) })
                }
            } else if current.ai_family == AF_INET6, let raw = current.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    addresses.append(withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) })
                }
            }
            entry = current.ai_next
        }
        return addresses
    }

    /// Whether an address is one the public internet routes: in none of the special-purpose
    /// ranges (`SpecialPurposeAddresses`), the ones an attacker would aim at.
    package static func isPublic(_ address: [UInt8]) -> Bool {
        SpecialPurposeAddresses.range(of: address) == nil
    }
}
