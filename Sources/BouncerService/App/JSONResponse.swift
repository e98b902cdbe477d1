import BouncerApplication
import HTTPServer
import JSON

extension Response {
    /// A JSON response from an `Encodable` value (snake_case keys are the value's own names,
    /// written in key order).
    static func encoded(_ value: some Encodable, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) throws -> Response {
        .json(status, try JSONText.encode(value), headers: headers)
    }
}
