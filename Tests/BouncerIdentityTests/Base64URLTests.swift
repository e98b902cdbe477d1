import Testing
@testable import BouncerIdentity

@Suite struct Base64URLTests {
    @Test(arguments: ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\u{0}\u{FF}ü→🙂"])
    func roundTrips(text: String) {
        let bytes = Array(text.utf8)
        let encoded = Base64URL.encode(bytes)
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        #expect(Base64URL.decode(Array(encoded.utf8)) == bytes)
    }

    @Test func knownVectors() {
        // RFC 4648 section 10, without padding.
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test(arguments: [
        "Zm8=",      // padding
        "Zm9v YmFy", // whitespace
        "+/8",       // the standard alphabet
        "Zm9",       // stray bits in the last character (canonical is Zm8)
        "Z",         // a length no encoding has
        "Zm8\n",
    ])
    func nonCanonicalTextIsRefused(text: String) {
        #expect(Base64URL.decode(Array(text.utf8)) == nil)
    }
}
