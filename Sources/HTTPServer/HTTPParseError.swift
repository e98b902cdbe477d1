/// Why a request could not be parsed, and the status that answers it. After any parse error the
/// connection is closed: the framing of whatever follows can no longer be trusted.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    /// A stable snake_case identifier for the problem JSON `code`.
    public var code: String
    public var detail: String
    /// The values in `detail`, for a translated detail.
    public var detailArguments: [String]
    /// The detail's own text key (`error.detail.<key>`), for a code with several details.
    public var detailKey: String?

    public init(_ status: HTTPStatus, _ code: String, _ detail: String, detailArguments: [String] = [], detailKey: String? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
        self.detailArguments = detailArguments
        self.detailKey = detailKey
    }

    public var description: String { "\(status.code) \(code): \(detail)" }

    static func bad(_ code: String, _ detail: String, key: String? = nil) -> HTTPParseError {
        HTTPParseError(.badRequest, code, detail, detailKey: key)
    }
}
