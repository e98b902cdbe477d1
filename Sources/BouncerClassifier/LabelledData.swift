import BouncerDomain
import Foundation
import JSON

/// A labelled text as a file gives it, before normalization.
public struct LabelledText: Sendable, Equatable {
    public var text: String
    public var label: Bool
    public var attribute: String

    public init(text: String, label: Bool, attribute: String = LabelledData.defaultAttribute) {
        self.text = text
        self.label = label
        self.attribute = attribute
    }
}

/// Reads labelled texts from a file, in either of two forms:
/// - CSV (RFC 4180: fields in double quotes may hold commas, quotes doubled and line breaks):
///   rows of `label,text`, or a first row naming the columns: `text` and `label` (or
///   `is_offensive`, as the profanity-check data names it), and optionally `attribute`;
/// - JSON lines: one object a line, `{"text":"...","label":0|1,"attribute"?:"toxicity"}`.
/// Labels are 0 or 1 (`true`/`false` in JSON too). Texts of no attribute are `toxicity`.
public enum LabelledData {
    public static let defaultAttribute = "toxicity"
    /// Longest text kept: a longer one is cut (the features read at most `FeatureHasher.maxBytes`).
    public static let maxTextBytes = 20_000

    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Reads `bytes`, as JSON lines when the first character that is not white space is `{`.
    public static func read(_ bytes: [UInt8]) throws(Unreadable) -> [LabelledText] {
        let first = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        return first == UInt8(ascii: "{") ? try readJSONLines(bytes) : try readCSV(bytes)
    }

    private struct JSONLine: Decodable {
        var text: String
        var label: LabelValue
        var attribute: String?
    }

    private enum LabelValue: Decodable {
        case value(Bool)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) { self = .value(flag); return }
            let number = try container.decode(Int.self)
            guard number == 0 || number == 1 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a label is 0 or 1")
            }
            self = .value(number == 1)
        }
        var flag: Bool { if case .value(let flag) = self { flag } else { false } }
    }

    static func readJSONLines(_ bytes: [UInt8]) throws(Unreadable) -> [LabelledText] {
        var texts: [LabelledText] = []
        var line = 0
        for slice in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            line += 1
            let trimmed = slice.last == 0x0D ? slice.dropLast() : slice
            guard trimmed.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            do {
                let object = try StrictJSONParser.parse(Array(trimmed)).decode(JSONLine.self)
                try texts.append(labelled(object.text, object.label.flag, object.attribute, line: line))
            } catch let error as Unreadable {
                throw error
            } catch {
                throw Unreadable(line: line, reason: "not an object with `text` and a `label` of 0 or 1 (\(error))")
            }
        }
        return texts
    }

    static func readCSV(_ bytes: [UInt8]) throws(Unreadable) -> [LabelledText] {
        var rows = CSVRows(bytes)
        guard let first = try rows.next() else { return [] }
        var textColumn = 1, labelColumn = 0, attributeColumn: Int?
        var pending: (fields: [String], line: Int)? = first
        let names = first.fields.map { $0.lowercased() }
        if let text = names.firstIndex(of: "text") {
            guard let label = names.firstIndex(where: { $0 == "label" || $0 == "is_offensive" }) else {
                throw Unreadable(line: 1, reason: "the header names `text` but no `label` column")
            }
            textColumn = text
            labelColumn = label
            attributeColumn = names.firstIndex(of: "attribute")
            pending = nil
        }
        var texts: [LabelledText] = []
        while true {
            let next: (fields: [String], line: Int)?
            if let held = pending { next = held } else { next = try rows.next() }
            guard let row = next else { break }
            pending = nil
            let needed = max(textColumn, labelColumn, attributeColumn ?? 0)
            guard row.fields.count > needed else {
                if row.fields.count == 1 && row.fields[0].isEmpty { continue }  // an empty line
                throw Unreadable(line: row.line, reason: "\(row.fields.count) fields; expected \(needed + 1)")
            }
            let label: Bool
            switch row.fields[labelColumn].trimmingCharacters(in: .whitespaces) {
            case "1", "1.0", "true": label = true
            case "0", "0.0", "false": label = false
            default: throw Unreadable(line: row.line, reason: "the label is \"\(row.fields[labelColumn].prefix(20))\"; it must be 0 or 1")
            }
            try texts.append(labelled(row.fields[textColumn], label, attributeColumn.map { row.fields[$0] }, line: row.line))
        }
        return texts
    }

    private static func labelled(_ text: String, _ label: Bool, _ attribute: String?, line: Int) throws(Unreadable) -> LabelledText {
        let attribute = attribute.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } ?? defaultAttribute
        guard RuleParams.isAttributeName(attribute) else {
            throw Unreadable(line: line, reason: "the attribute \"\(attribute.prefix(40))\" is not 1-40 characters of a-z, 0-9 and _")
        }
        var kept = text
        if kept.utf8.count > maxTextBytes { kept = String(decoding: kept.utf8.prefix(maxTextBytes), as: UTF8.self) }
        return LabelledText(text: kept, label: label, attribute: attribute)
    }
}

/// The rows of a CSV text, with the line each starts on.
struct CSVRows {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1

    init(_ bytes: [UInt8]) {
        // A byte order mark is not part of the first field.
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func next() throws(LabelledData.Unreadable) -> (fields: [String], line: Int)? {
        guard index < bytes.count else { return nil }
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where field.isEmpty:
                quoted = true
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case 0x0A:
                line += 1
                if field.last == 0x0D { field.removeLast() }
                fields.append(String(decoding: field, as: UTF8.self))
                return (fields, startLine)
            default:
                field.append(byte)
            }
        }
        if quoted { throw LabelledData.Unreadable(line: startLine, reason: "a quoted field is not closed") }
        if field.last == 0x0D { field.removeLast() }
        fields.append(String(decoding: field, as: UTF8.self))
        return (fields, startLine)
    }
}
