import Foundation
import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct ModerationRecordTests {
    static let sample = #"""
        {"action":"bounce","rules":[
          {"id":"r1","name":"say \"no\"","kind":"word","action":"bounce",
           "matched":[{"text":"b\\ad\n","start":3,"end":8,"utf16_start":3,"utf16_end":9}]},
          {"id":"r2","name":"héllo 👋","kind":"regex","matched":[]}],
         "original_text":"tab\there \u0001 and ünïcode 🎉","flagged":true}
        """#

    @Test func theHandWrittenFormReadsBackAsTheSameRecord() throws {
        let record = try #require(ModerationRecord.decode(Self.sample))
        #expect(record.rules.count == 2)
        #expect(record.rules[1].action == nil)
        #expect(ModerationRecord.decode(record.json) == record)
    }

    @Test func theHandWrittenFormIsTheObjectJSONEncoderWrites() throws {
        let record = try #require(ModerationRecord.decode(Self.sample))
        let handWritten = try JSONSerialization.jsonObject(with: Data(record.json.utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? NSDictionary
        #expect(handWritten != nil)
        #expect(handWritten == encoded)
    }

    /// The author's copy leaves out what observed rules found, and is the stored text itself
    /// when there is nothing to leave out.
    @Test func theAuthorsCopyLeavesOutObservedRulesAlone() throws {
        var record = try #require(ModerationRecord.decode(Self.sample))
        #expect(ModerationRecord.forAuthor(record.json) == record.json)
        record.observed = record.rules
        let stored = record.json
        #expect(stored.contains(#""observed":"#))
        let forAuthor = ModerationRecord.forAuthor(stored)
        #expect(!forAuthor.contains("observed"))
        var expected = record
        expected.observed = nil
        #expect(ModerationRecord.decode(forAuthor) == expected)
        // The key's text inside a value is not a member.
        #expect(ModerationRecord.forAuthor(#"{"action":"flag","rules":[],"original_text":"\"observed\":","flagged":false}"#)
                == #"{"action":"flag","rules":[],"original_text":"\"observed\":","flagged":false}"#)
        #expect(ModerationRecord.forAuthor("") == "")
    }
}
