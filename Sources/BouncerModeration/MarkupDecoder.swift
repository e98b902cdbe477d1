import Foundation
import Glibc

/// Reads markup out of the `folded` form before words are made of it, so that `f<b>u</b>ck`,
/// `a<br>ss`, `sh&#105;t` and `&#x73;hit` are the words they spell: character references become
/// the character they stand for (folded like any other), and tags of HTML's text formatting
/// vanish without leaving a separator. Only tags with a known name are read as tags, so `<fuck>`
/// stays text. Each byte written remembers the original characters it covers (a reference covers
/// all of `&#105;`).
enum MarkupDecoder {
    struct Decoded {
        var bytes: [UInt8] = []
        var starts: [Int32] = []
        var ends: [Int32] = []
    }

    /// Where each decoded byte came from: the original characters `starts[i]..<ends[i]`.
    struct Spans {
        let starts: UnsafeBufferPointer<Int32>
        let ends: UnsafeBufferPointer<Int32>
    }

    /// Longest tag read (with its attributes), and longest reference (`&#x10FFFF;`).
    static let maxTagBytes = 256
    static let maxReferenceBytes = 10

    /// Tag names read as markup: formatting a chat client might pass through.
    static let tagNames: Set<[UInt8]> = Set([
        "a", "abbr", "b", "big", "blink", "br", "code", "del", "div", "em", "font", "h1", "h2", "h3", "h4", "h5", "h6",
        "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike",
        "strong", "sub", "sup", "tt", "u", "ul", "wbr",
    ].map { Array($0.utf8) })

    /// HTML's named references for markup characters, invisible ones (`&shy;` hides inside a
    /// word) and Latin letters. Names are matched in lower case (the folded text is), which
    /// folds `&Auml;` and `&auml;` alike: both fold to `a` anyway.
    static let namedReferences: [[UInt8]: Unicode.Scalar] = {
        var names: [String: Unicode.Scalar] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "shy": "\u{AD}", "zwj": "\u{200D}",
            "zwnj": "\u{200C}", "lrm": "\u{200E}", "rlm": "\u{200F}", "szlig": "ß", "aelig": "æ", "oelig": "œ", "oslash": "ø",
            "aring": "å", "ccedil": "ç", "eth": "ð", "thorn": "þ", "copy": "©", "reg": "®", "euro": "€", "cent": "¢",
            "iexcl": "¡", "dagger": "†",
        ]
        for (mark, accent) in [("acute", "\u{301}"), ("grave", "\u{300}"), ("circ", "\u{302}"), ("uml", "\u{308}"), ("tilde", "\u{303}")] {
            for letter in "aeiouyn" {
                let composed = (String(letter) + accent).precomposedStringWithCanonicalMapping.unicodeScalars
                if composed.count == 1 { names[String(letter) + mark] = composed.first! }
            }
        }
        return Dictionary(uniqueKeysWithValues: names.map { (Array($0.key.utf8), $0.value) })
    }()

    /// The text with its markup read, or nil when it has none (most messages: then the folded
    /// form is used as it is).
    static func decode(_ folded: [UInt8], _ origin: [Int32]) -> Decoded? {
        // memchr looks at many bytes at a time: the test costs most messages next to nothing.
        let hasMarkup = folded.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(UInt8(ascii: "<")), bytes.count) != nil
                || memchr(base, Int32(UInt8(ascii: "&")), bytes.count) != nil
        }
        guard hasMarkup else { return nil }
        var decoded = Decoded()
        decoded.bytes.reserveCapacity(folded.count)
        decoded.starts.reserveCapacity(folded.count)
        decoded.ends.reserveCapacity(folded.count)
        var changed = false
        var index = 0
        while index < folded.count {
            let byte = folded[index]
            if byte == UInt8(ascii: "<"), let end = commentEnd(folded, from: index) ?? tagEnd(folded, from: index) {
                index = end
                changed = true
                continue
            }
            if byte == UInt8(ascii: "&"), let (scalar, end) = reference(folded, from: index) {
                var bytes: [UInt8] = [], ignored: [Int32] = []
                NormalizedText.fold(scalar, index: 0, into: &bytes, origin: &ignored)
                for decodedByte in bytes {
                    decoded.bytes.append(decodedByte)
                    decoded.starts.append(origin[index])
                    decoded.ends.append(origin[end - 1] + 1)
                }
                index = end
                changed = true
                continue
            }
            decoded.bytes.append(byte)
            decoded.starts.append(origin[index])
            decoded.ends.append(origin[index] + 1)
            index += 1
        }
        return changed ? decoded : nil
    }

    /// Where the comment that opens at `start` (`<!-- -->`) ends, if it is one that ends.
    static func commentEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        let open = Array("<!--".utf8), close = Array("-->".utf8)
        guard bytes.count - start >= open.count + close.count, Array(bytes[start..<(start + open.count)]) == open else { return nil }
        let limit = min(bytes.count, start + maxTagBytes)
        var index = start + open.count
        while index + close.count <= limit {
            if bytes[index] == close[0] && Array(bytes[index..<(index + close.count)]) == close { return index + close.count }
            index += 1
        }
        return nil
    }

    /// Where the tag that opens at `start` ends (one past its `>`), if it is one.
    static func tagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        if index < bytes.count && bytes[index] == UInt8(ascii: "/") { index += 1 }
        let nameStart = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        guard index > nameStart, tagNames.contains(Array(bytes[nameStart..<index])) else { return nil }
        // Attributes, or a self-closing `/`, up to `>`: nothing that could open another tag.
        let limit = min(bytes.count, start + maxTagBytes)
        while index < limit {
            switch bytes[index] {
            case UInt8(ascii: ">"): return index + 1
            case UInt8(ascii: "<"), 10, 13: return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The character the reference at `start` stands for, and where the reference ends.
    static func reference(_ bytes: [UInt8], from start: Int) -> (Unicode.Scalar, Int)? {
        let limit = min(bytes.count, start + maxReferenceBytes + 1)
        guard let semicolon = bytes[start..<limit].firstIndex(of: UInt8(ascii: ";")), semicolon > start + 1 else { return nil }
        let body = Array(bytes[(start + 1)..<semicolon])
        var value: UInt32?
        if body.first == UInt8(ascii: "#") {
            let hex = body.count > 1 && body[1] == UInt8(ascii: "x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty else { return nil }
            value = UInt32(String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10)
        } else {
            value = namedReferences[body]?.value
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, semicolon + 1)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool { byte &- 97 < 26 || byte &- 48 < 10 }
}
