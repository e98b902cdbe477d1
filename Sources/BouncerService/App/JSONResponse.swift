import Foundation
import HTTPServer

extension Response {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON response from an `Encodable` value (snake_case keys are the value's own names).
    static func encoded(_ value: some Encodable, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) throws -> Response {
        .json(status, Array(try encoder.encode(value)), headers: headers)
    }
}
