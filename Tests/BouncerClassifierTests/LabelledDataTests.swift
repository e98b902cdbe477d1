import BouncerClassifier
import Testing

@Suite struct LabelledDataTests {
    @Test func readsCSVWithQuotesLineBreaksAndAHeader() throws {
        let csv = "is_offensive,text\r\n0,hello there\r\n1,\"you, \"\"idiot\"\"\nsecond line\"\n0,plain\n"
        let texts = try LabelledData.read(Array(csv.utf8))
        #expect(texts == [LabelledText(text: "hello there", label: false), LabelledText(text: "you, \"idiot\"\nsecond line", label: true),
                          LabelledText(text: "plain", label: false)])
    }

    @Test func readsCSVWithoutAHeaderAsLabelThenText() throws {
        let texts = try LabelledData.read(Array("1,bad words\n0,good words".utf8))
        #expect(texts.map(\.label) == [true, false])
        #expect(texts.map(\.attribute) == ["toxicity", "toxicity"])
    }

    @Test func readsJSONLinesWithAttributes() throws {
        let lines = #"{"text":"du Idiot","label":1,"attribute":"insult"}"# + "\n\n" + #"{"text":"guten Tag","label":false}"# + "\n"
        let texts = try LabelledData.read(Array(lines.utf8))
        #expect(texts == [LabelledText(text: "du Idiot", label: true, attribute: "insult"), LabelledText(text: "guten Tag", label: false)])
    }

    @Test func saysWhichLineIsWrong() {
        #expect(throws: LabelledData.Unreadable.self) { try LabelledData.read(Array("0,fine\n2,what\n".utf8)) }
        do {
            _ = try LabelledData.read(Array("0,fine\n\"1,open".utf8))
            Issue.record("an unclosed quote was read")
        } catch {
            #expect(error.line == 2)
        }
        #expect(throws: LabelledData.Unreadable.self) { try LabelledData.read(Array(#"{"text":"x","label":1,"attribute":"Bad Name"}"#.utf8)) }
        #expect(throws: LabelledData.Unreadable.self) { try LabelledData.read(Array(#"{"text":"x"}"#.utf8)) }
    }
}
