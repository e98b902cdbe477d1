import Foundation
import Testing
@testable import BouncerLocalization

@Suite struct BundledStringsTests {
    static let contractKeys = [
        "message.moderation.alert.title", "message.moderation.alert.message", "message.moderation.alert.resend",
        "message.moderation.alert.edit", "message.moderation.alert.delete", "message.bounce.title",
        "message.actions.flag", "message.actions.flag.confirmation-title", "message.actions.flag.confirmation-message",
    ]

    @Test func theContractsKeysHaveTheirEnglishDefaults() {
        #expect(BundledStrings.en["message.moderation.alert.title"] == "Are you sure?")
        #expect(BundledStrings.en["message.moderation.alert.message"]
            == "Consider how your comment might make others feel and be sure to follow our Community Guidelines.")
        #expect(BundledStrings.en["message.moderation.alert.resend"] == "Send Anyway")
        #expect(BundledStrings.en["message.moderation.alert.edit"] == "Edit Message")
        #expect(BundledStrings.en["message.moderation.alert.delete"] == "Delete Message")
        #expect(BundledStrings.en["message.bounce.title"] == "Message was bounced")
        #expect(BundledStrings.en["message.actions.flag"] == "Flag Message")
        #expect(BundledStrings.en["message.actions.flag.confirmation-title"] == "Flag Message")
        #expect(BundledStrings.en["message.actions.flag.confirmation-message"]
            == "Do you want to send a copy of this message to a moderator for further investigation?")
    }

    @Test func enoughLocalesShipIncludingRightToLeft() {
        let required = ["de", "es", "fr", "it", "pt", "pt-BR", "nl", "ja", "ko", "zh-Hans", "ru", "tr"]
        for tag in required { #expect(BundledStrings.all[tag] != nil, "\(tag) is bundled") }
        #expect(BundledStrings.all.count >= 13)
        #expect(BundledStrings.all["ar"] != nil || BundledStrings.all["he"] != nil, "a right-to-left language is bundled")
        for tag in BundledStrings.all.keys { #expect(LocaleTag.canonical(tag) == tag, "\(tag) is spelled canonically") }
    }

    @Test(arguments: BundledStrings.all.keys.sorted())
    func everyKeyIsTranslatedWithTheEnglishPlaceholders(locale: String) throws {
        let strings = try #require(BundledStrings.all[locale])
        let missing = Set(BundledStrings.en.keys).subtracting(strings.keys)
        let extra = Set(strings.keys).subtracting(BundledStrings.en.keys)
        #expect(missing.isEmpty, "\(locale) lacks \(missing.sorted())")
        #expect(extra.isEmpty, "\(locale) has keys English does not: \(extra.sorted())")
        for (key, english) in BundledStrings.en {
            guard let text = strings[key] else { continue }
            #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(locale) \(key) is blank")
            #expect(FormatPlaceholders.placeholders(in: text) == FormatPlaceholders.placeholders(in: english),
                    "\(locale) \(key): \(text)")
        }
    }

    @Test func translationsAreTranslated() {
        // A locale that copied English wholesale would pass the key checks; the alert must differ.
        for (locale, strings) in BundledStrings.all where locale != "en" {
            #expect(strings["message.moderation.alert.title"] != BundledStrings.en["message.moderation.alert.title"], "\(locale)")
        }
    }

    @Test func eachBundledFileParsesWithEveryKeyOnce() throws {
        let files = [EmbeddedFiles.en_strings, EmbeddedFiles.de_strings, EmbeddedFiles.ar_strings, EmbeddedFiles.zh_Hans_strings,
                     EmbeddedFiles.pt_BR_strings]
        for bytes in files {
            let pairs = try StringsFile.parse(bytes)
            #expect(pairs.count == BundledStrings.en.count)
            #expect(Set(pairs.map(\.key)).count == pairs.count, "no key is written twice")
        }
    }
}
