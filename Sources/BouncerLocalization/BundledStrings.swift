/// The translations that ship with Bouncer, written for this project. Each is a plain
/// `Translations/<locale>.strings` file (an app's `Localizable.strings` for that locale, in the
/// same format), embedded in the binary and read with `StringsFile`, the parser that reads
/// overrides. Each locale's file has every key of the English one, with the same placeholders;
/// a test checks both.
public enum BundledStrings {
    /// Every bundled locale by its canonical tag.
    public static let all: [String: [String: String]] = files.mapValues(\.table)

    /// English: the source texts, and the last fallback for every other locale.
    public static let en = all["en", default: [:]]

    /// The keys Bouncer knows, in a stable order.
    public static let keys: [String] = en.keys.sorted()

    /// Tags answered by another bundled locale: a bare `zh` conventionally means Simplified.
    static let aliases: [String: String] = ["zh": "zh-Hans"]

    private static let files: [String: [UInt8]] = [
        "en": PackageResources.en_strings, "de": PackageResources.de_strings, "es": PackageResources.es_strings,
        "fr": PackageResources.fr_strings, "it": PackageResources.it_strings, "pt": PackageResources.pt_strings,
        "pt-BR": PackageResources.pt_BR_strings, "nl": PackageResources.nl_strings, "ja": PackageResources.ja_strings,
        "ko": PackageResources.ko_strings, "zh-Hans": PackageResources.zh_Hans_strings, "ru": PackageResources.ru_strings,
        "tr": PackageResources.tr_strings, "ar": PackageResources.ar_strings, "he": PackageResources.he_strings,
        "pl": PackageResources.pl_strings, "sv": PackageResources.sv_strings,
    ]
}

private extension [UInt8] {
    /// The file's table. The files are part of the build and a test parses each: one that does
    /// not parse is a broken build, not something to run with.
    var table: [String: String] {
        do {
            return try StringsFile.parseDictionary(self)
        } catch {
            preconditionFailure("a bundled .strings file does not parse: \(error)")
        }
    }
}
