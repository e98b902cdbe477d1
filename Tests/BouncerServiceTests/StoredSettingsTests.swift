import BouncerStore
import Testing
@testable import BouncerApplication
@testable import BouncerService

/// Stored settings decode or stop the change that reads them: put in force as the defaults, a
/// document that does not decode would undo every setting an admin made.
@Suite struct StoredSettingsTests {
    @Test func noDocumentIsTheDefaults() throws {
        let defaults = Settings()
        #expect(try LiveSettings.decode(SettingsSnapshot(sequence: 0, json: nil), defaults: defaults) == defaults)
    }

    @Test func aDocumentOfAnEarlierReleaseKeepsItsSettingsAndTakesDefaultsForTheRest() throws {
        let stored = try LiveSettings.decode(SettingsSnapshot(sequence: 3, json: #"{"max_message_length":500}"#), defaults: Settings())
        #expect(stored.max_message_length == 500)
        #expect(stored.strike_policy == nil)
        #expect(stored.flag_reasons == Settings().flag_reasons)
    }

    @Test func aDocumentThatDoesNotDecodeThrows() {
        for bad in ["{", #"{"max_message_length":"long"}"#, "[]", #"{"strike_policy":7}"#] {
            #expect(throws: StoredSettingsError.self, "\(bad)") {
                try LiveSettings.decode(SettingsSnapshot(sequence: 4, json: bad), defaults: Settings())
            }
        }
    }
}
