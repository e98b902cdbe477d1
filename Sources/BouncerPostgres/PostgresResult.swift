import BouncerStore
import CLibPQ

/// What a statement returned: its rows, typed from the columns' types, and how many rows it
/// changed.
public struct PostgresResult: Sendable {
    public var rows: [Row]
    /// Rows inserted, updated or deleted (0 for a query).
    public var changes: Int

    init(_ result: OpaquePointer?) {
        changes = result.flatMap { Int(String(cString: PQcmdTuples($0))) } ?? 0
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else {
            rows = []
            return
        }
        let columnCount = Int(PQnfields(result))
        let names = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<columnCount).map { PQftype(result, Int32($0)) }
        rows = (0..<Int(PQntuples(result))).map { row in
            Row(columnNames: names, values: (0..<columnCount).map { column in
                guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return .null }
                let text = String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                return Self.value(text, type: types[column])
            })
        }
    }

    /// A column's text as the value SQLite would have given: integers and booleans as integers,
    /// floating point as reals, `bytea` as bytes, everything else as text.
    static func value(_ text: String, type: Oid) -> DatabaseValue {
        switch type {
        case 20, 21, 23: // int8, int2, int4
            Int64(text).map(DatabaseValue.integer) ?? .text(text)
        case 16: // bool
            .integer(text == "t" ? 1 : 0)
        case 700, 701, 1700: // float4, float8, numeric
            Double(text).map(DatabaseValue.real) ?? .text(text)
        case 17: // bytea, in hex (\x0a1b...)
            .blob(hexBytes(text))
        default:
            .text(text)
        }
    }

    private static func hexBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var pending: UInt8?
        for byte in text.utf8.dropFirst(2) {
            let nibble: UInt8 = switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: 0
            }
            if let high = pending {
                bytes.append(high << 4 | nibble)
                pending = nil
            } else {
                pending = nibble
            }
        }
        return bytes
    }
}
