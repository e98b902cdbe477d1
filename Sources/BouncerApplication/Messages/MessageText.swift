import BouncerModeration
import BouncerStore
import Foundation

/// The checks every message text passes: 1 to `maxLength` characters, not blank. And the
/// bounds of what a message or a flag carries beside its text.
package enum MessageText {
    /// The most bytes of `custom` JSON a message or a flag keeps.
    package static let maxCustomBytes = 5 * 1024

    package static func validate(_ text: String, maxLength: Int) throws(MessageError) {
        // A scalar is at least one byte: a text within the limit in bytes needs no counting.
        let bytes = text.utf8.count
        let count = bytes <= maxLength ? bytes : text.unicodeScalars.count
        guard count >= 1, count <= maxLength else { throw .textLength(max: maxLength) }
        guard text.unicodeScalars.contains(where: isVisible) else { throw .textBlank }
    }

    /// Neither white space nor invisible. ASCII is answered without looking up Unicode's
    /// properties, which costs a table search per question: white space there is the space and
    /// tab to carriage return, and no ASCII character is default-ignorable.
    package static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value != 0x20 && !(0x09...0x0D).contains(scalar.value) }
        return !scalar.properties.isWhitespace && !scalar.properties.isDefaultIgnorableCodePoint
    }
}
