import BouncerDomain
import Testing

/// The one check of ids: each kind's length and characters.
@Suite struct IDSyntaxTests {
    @Test func userIDsAreThoseChatBackendsUse() {
        for id in ["alice", "@alice=bob+x:matrix.example.org", "user|42", "a_b.c-d", String(repeating: "u", count: 255)] {
            #expect(IDSyntax.user.accepts(id), "\(id)")
            #expect(UserID.isValid(id))
        }
        for id in ["", "al ice", "alïce", "a/b", "a*b", String(repeating: "u", count: 256), "a\u{0}"] {
            #expect(!IDSyntax.user.accepts(id), "\(id)")
        }
        #expect(!UserID.isPersonal(SystemFlag.reporterID))
    }

    @Test func channelIDsAre64OrAMatrixRoomUpTo255() {
        #expect(IDSyntax.channel.accepts("general"))
        #expect(IDSyntax.channel.accepts(String(repeating: "c", count: 64)))
        #expect(!IDSyntax.channel.accepts(String(repeating: "c", count: 65)))
        let room = "!" + String(repeating: "r", count: 200) + ":example.org"
        #expect(room.utf8.count <= 255 && IDSyntax.channel.accepts(room))
        #expect(!IDSyntax.channel.accepts("!" + String(repeating: "r", count: 255)))
        #expect(!IDSyntax.channel.accepts("team-*"), "a wildcard is a pattern's, not an id's")
        #expect(IDSyntax.channelPattern.accepts("team-*"))
        #expect(IDSyntax.channelPattern.accepts("*"))
        #expect(!IDSyntax.channelPattern.accepts("team @"))
    }

    @Test func messageIDsAreLettersDigitsUnderscoresAndDashes() {
        #expect(IDSyntax.message.accepts("m_1-A"))
        #expect(IDSyntax.message.accepts(String(repeating: "m", count: 100)))
        #expect(!IDSyntax.message.accepts(String(repeating: "m", count: 101)))
        for id in ["", "m.1", "m:1", "m 1", "m/1"] { #expect(!IDSyntax.message.accepts(id), "\(id)") }
    }
}
