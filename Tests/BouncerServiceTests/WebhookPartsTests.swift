import Foundation
import Testing
@testable import BouncerApplication
@testable import BouncerService
import BouncerDomain
@testable import BouncerStore

/// The pure parts of webhook delivery: signing, which URLs are taken, and what an attempt's
/// outcome leads to.
@Suite struct WebhookPartsTests {
    /// The Standard Webhooks specification's own example, as its reference library signs it.
    @Test func signaturesAreTheSpecificationsExample() {
        let signature = WebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                              body: Array(#"{"test": 2432232314}"#.utf8), secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(WebhookSignature.sign(id: "x", timestamp: 1, body: [], secret: "not-a-secret") == nil)
        let secret = WebhookSignature.newSecret()
        #expect(secret.hasPrefix("whsec_") && WebhookSignature.key(of: secret)?.count == 24)
        #expect(WebhookSignature.newSecret() != secret)
    }

    @Test(arguments: [
        ([127, 0, 0, 1], false), ([10, 1, 2, 3], false), ([172, 16, 0, 1], false), ([172, 31, 255, 255], false), ([172, 32, 0, 1], true),
        ([192, 168, 0, 1], false), ([169, 254, 169, 254], false), ([100, 64, 0, 1], false), ([100, 128, 0, 1], true), ([0, 0, 0, 0], false),
        ([224, 0, 0, 1], false), ([255, 255, 255, 255], false), ([8, 8, 8, 8], true), ([93, 184, 216, 34], true), ([198, 18, 0, 1], false),
    ] as [([UInt8], Bool)])
    func ipv4Addresses(address: [UInt8], isPublic: Bool) {
        #expect(WebhookAddress.isPublic(address) == isPublic)
    }

    @Test func ipv6Addresses() {
        var loopback = [UInt8](repeating: 0, count: 16)
        loopback[15] = 1
        #expect(!WebhookAddress.isPublic(loopback))
        #expect(!WebhookAddress.isPublic([UInt8](repeating: 0, count: 16)))
        #expect(!WebhookAddress.isPublic([0xfd] + [UInt8](repeating: 0, count: 15)))
        #expect(!WebhookAddress.isPublic([0xfe, 0x80] + [UInt8](repeating: 0, count: 14)))
        #expect(!WebhookAddress.isPublic([0xff, 0x02] + [UInt8](repeating: 0, count: 14)))
        // ::ffff:10.0.0.1, an IPv4 address in IPv6 clothing.
        #expect(!WebhookAddress.isPublic([UInt8](repeating: 0, count: 10) + [0xff, 0xff, 10, 0, 0, 1]))
        #expect(WebhookAddress.isPublic([0x26, 0x06, 0x47, 0x00] + [UInt8](repeating: 0, count: 11) + [1]))
    }

    /// IPv6 forms that carry or reach an IPv4 address (loopback here) and the other special
    /// ranges, refused at registration and at connect.
    @Test(arguments: ["64:ff9b::7f00:1", "64:ff9b::808:808", "64:ff9b:1::1", "2002:7f00:1::1", "::127.0.0.1", "::8.8.8.8",
                      "fec0::1", "::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8", "2001::1", "2001:db8::1", "fe80::1", "fd00::1", "::1", "::"])
    func ipv6FormsThatAreNotPublic(text: String) {
        var bytes = [UInt8](repeating: 0, count: 16)
        #expect(inet_pton(AF_INET6, text, &bytes) == 1, "\(text)")
        #expect(!WebhookAddress.isPublic(bytes), "\(text)")
    }

    /// IANA's special-purpose ranges that were once taken (documentation, relay anycast,
    /// discard-only, ORCHIDv2, SRv6): each refused, at its first and last address, at
    /// registration as at connect, while the addresses just outside stay public.
    @Test(arguments: [("192.0.2.0", "192.0.2.255"), ("198.51.100.0", "198.51.100.255"), ("203.0.113.0", "203.0.113.255"),
                      ("192.88.99.0", "192.88.99.255"), ("192.31.196.1", "192.52.193.1"), ("192.175.48.1", "240.0.0.1"),
                      ("3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"), ("100::", "100::ffff:ffff:ffff:ffff"),
                      ("100:0:0:1::1", "2001:1ff::1"), ("2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"),
                      ("5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), ("2620:4f:8000::1", "::ffff:203.0.113.9")])
    func specialPurposeRangesAreRefused(first: String, last: String) async {
        for text in [first, last] {
            let bytes = Self.address(text)
            #expect(!WebhookAddress.isPublic(bytes), "\(text)")
            let host = text.contains(":") ? "[\(text)]" : text
            await #expect(throws: WebhookAddress.Refusal.self, "\(text)") { try await WebhookAddress.check("http://\(host)/hook", allowPrivate: false) }
        }
    }

    @Test(arguments: ["192.0.1.255", "192.0.3.0", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "192.88.98.255",
                      "192.88.100.0", "3fff:1000::1", "3ffe:ffff::1", "101::1", "2001:200::1", "5f01::1", "5eff::1", "2620:4f:8001::1"])
    func addressesJustOutsideThemArePublic(text: String) {
        #expect(WebhookAddress.isPublic(Self.address(text)), "\(text)")
    }

    @Test func everyRangeSpellsOutAllItsBits() {
        for range in SpecialPurposeAddresses.ipv4 + SpecialPurposeAddresses.ipv6 {
            #expect(range.prefix.count * 8 >= range.bits, "\(range.name)")
            #expect(range.prefix.count <= (SpecialPurposeAddresses.ipv4.contains { $0.name == range.name && $0.prefix == range.prefix } ? 4 : 16))
        }
    }

    static func address(_ text: String) -> [UInt8] {
        if text.contains(":") {
            var bytes = [UInt8](repeating: 0, count: 16)
            #expect(inet_pton(AF_INET6, text, &bytes) == 1, "\(text)")
            return bytes
        }
        var bytes = [UInt8](repeating: 0, count: 4)
        #expect(inet_pton(AF_INET, text, &bytes) == 1, "\(text)")
        return bytes
    }

    @Test func urlsOfThoseFormsAreRefusedAtRegistration() async {
        for url in ["http://[64:ff9b::7f00:1]/x", "http://[2002:7f00:1::1]/x", "http://[::127.0.0.1]/x", "http://[fec0::1]/x",
                    "http://[::ffff:0:127.0.0.1]/x"] {
            await #expect(throws: WebhookAddress.Refusal.self, "\(url)") { try await WebhookAddress.check(url, allowPrivate: false) }
        }
        #expect(WebhookAddress.isPublic([0x26, 0x06, 0x47, 0x00] + [UInt8](repeating: 0, count: 11) + [1]), "2606:4700::1 is public")
    }

    /// The forms libc reads as IPv4 besides the dotted quad are judged as addresses, without a
    /// name server (registration no longer waits on one for them).
    @Test(arguments: ["http://0x7f.1/x", "http://2130706433/x", "http://127.1/x", "http://017700000001/x", "http://10.1/x"])
    func shortIPv4FormsAreRefusedAtRegistration(url: String) async {
        await #expect(throws: WebhookAddress.Refusal.self, "\(url)") { try await WebhookAddress.check(url, allowPrivate: false) }
    }

    @Test func urlsAreCheckedForForm() async {
        for bad in ["ftp://example.com/x", "example.com/x", "http://", "https://user:pass@example.com/x", "http://" + String(repeating: "a", count: 2050)] {
            await #expect(throws: WebhookAddress.Refusal.self, "\(bad.prefix(40))") { try await WebhookAddress.check(bad, allowPrivate: true) }
        }
        await #expect(throws: WebhookAddress.Refusal.self) { try await WebhookAddress.check("http://127.0.0.1:9/x", allowPrivate: false) }
        await #expect(throws: WebhookAddress.Refusal.self) { try await WebhookAddress.check("http://LOCALHOST/x", allowPrivate: false) }
        #expect(await (try? WebhookAddress.check("http://127.0.0.1:9/x", allowPrivate: true)) != nil)
    }

    static func delivery(attempts: Int, createdAt: Date) -> WebhookDelivery {
        WebhookDelivery(id: 7, webhookID: "w", messageID: "42", eventType: "user.banned", payload: "{}", state: .pending, attempts: attempts,
                        nextAttemptAt: "", lastStatus: nil, lastError: nil, createdAt: Timestamp.format(createdAt), updatedAt: "")
    }

    /// 2xx is delivered, 410 disables, anything else waits 5 s, 15 s, 45 s ... at most 8 h, until a
    /// day has passed since the delivery was made, when the last attempt falls.
    @Test func outcomesLeadToTheRightNextStep() {
        let limits = WebhookDispatcher.Limits()
        let now = Date()
        let fresh = Self.delivery(attempts: 1, createdAt: now)
        #expect(WebhookDispatcher.result(of: .init(status: 204, error: nil), for: fresh, limits: limits, now: now).state == .delivered)
        let gone = WebhookDispatcher.result(of: .init(status: 410, error: nil), for: fresh, limits: limits, now: now)
        #expect(gone.state == .failed && gone.disableWebhook != nil)
        let refused = WebhookDispatcher.result(of: .init(status: nil, error: "connection refused"), for: fresh, limits: limits, now: now)
        #expect(refused.state == .pending && refused.error == "connection refused" && refused.nextAttemptAt == Timestamp.format(now.addingTimeInterval(5)))
        let failing = WebhookDispatcher.result(of: .init(status: 500, error: nil), for: Self.delivery(attempts: 3, createdAt: now), limits: limits, now: now)
        #expect(failing.state == .pending && failing.error == "HTTP 500" && failing.nextAttemptAt == Timestamp.format(now.addingTimeInterval(45)))
        #expect(WebhookDispatcher.delay(afterAttempt: 30, first: .seconds(5)) == 8 * 3600)
        // The last attempt is at the day's end, not later; after it, the delivery has failed.
        let late = Self.delivery(attempts: 12, createdAt: now.addingTimeInterval(-23.5 * 3600))
        let last = WebhookDispatcher.result(of: .init(status: 503, error: nil), for: late, limits: limits, now: now)
        #expect(last.state == .pending && last.nextAttemptAt == Timestamp.format(now.addingTimeInterval(0.5 * 3600)))
        let over = Self.delivery(attempts: 13, createdAt: now.addingTimeInterval(-24 * 3600 - 1))
        #expect(WebhookDispatcher.result(of: .init(status: 503, error: nil), for: over, limits: limits, now: now).state == .failed)
        // Retrying goes on for at least a day in all.
        var waited: TimeInterval = 0
        var attempt = 1
        while waited < 24 * 3600 { waited += WebhookDispatcher.delay(afterAttempt: attempt, first: .seconds(5)); attempt += 1 }
        #expect(attempt > 10)
    }

    /// Unless private addresses are allowed, the sender never opens a socket to one, whatever the
    /// URL's host resolves to at the moment of delivery; allowed, it connects (here, to a port
    /// where nothing listens).
    @Test func theSenderRefusesPrivateAddressesWhereItConnects() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/hook"))
        let strict = WebhookSender(threads: 1)
        defer { strict.close() }
        let refused = await strict.post(url, headers: [:], body: [])
        #expect(refused.status == nil && refused.error?.hasPrefix("refused") == true, "\(refused)")
        let lenient = WebhookSender(threads: 1, allowPrivate: true)
        defer { lenient.close() }
        let attempted = await lenient.post(url, headers: [:], body: [])
        #expect(attempted.status == nil && attempted.error?.hasPrefix("refused") == false, "\(attempted)")
    }
}
