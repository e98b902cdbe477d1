import BouncerClassifier
import Testing

@Suite struct BundledModelTests {
    let model = BundledModel.model

    @Test func saysWhereItCameFromAndHowWellItScored() throws {
        #expect(model.attributes == ["toxicity"])
        #expect(model.info.languages == ["en"])
        let source = try #require(model.info.sources.first)
        #expect(source.sha256 == "766df9cd3149b9466377fd9b82b43a876d0c507956c9b479260a47cc7a7ec13e")
        #expect(model.info.command.hasPrefix("bouncer train --data .build/harm-data/train.csv"))
        let evaluation = try #require(model.info.evaluation["toxicity"])
        #expect(evaluation.auc > 0.97 && evaluation.held_out > 10_000)
    }

    @Test func scoresAbuseHighAndOrdinaryChatLow() {
        for text in ["you are a fucking idiot", "shut up you stupid bitch", "go kill yourself loser"] {
            #expect(model.scores(text)[0] > 0.8, "\(text)")
        }
        for text in ["have a nice day", "the meeting moved to 3pm, see the calendar", "thanks, that fixed it!"] {
            #expect(model.scores(text)[0] < 0.3, "\(text)")
        }
    }

    @Test func disguisedSpellingsScoreAsThePlainOnes() {
        let plain = model.scores("you are a fucking idiot")[0]
        for disguised in ["you are a f u c k i n g idiot", "you are a fuuuucking 1d10t", "you are a fúcking іdіot", "you are a f.u.c.k.i.n.g idiot"] {
            #expect(abs(model.scores(disguised)[0] - plain) < 0.05, "\(disguised)")
        }
    }
}
