import Foundation
import Testing
import TestSupport
@testable import HTTPServer

/// Checks that `response` is the server's problem JSON for `status` and `code`, with the
/// request id of its `X-Request-Id` header.
func expectProblem(_ response: RawResponse, status: Int, code: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, sourceLocation: sourceLocation)
    #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
    guard let members = response.json else {
        Issue.record("body is not a JSON object: \(response.text)", sourceLocation: sourceLocation)
        return
    }
    #expect(members["status"] as? Int == status, sourceLocation: sourceLocation)
    #expect(members["code"] as? String == code, sourceLocation: sourceLocation)
    let requestID = members["request_id"] as? String
    #expect(requestID != nil && requestID == response.header("X-Request-Id"), sourceLocation: sourceLocation)
}

/// An IMF-fixdate (RFC 9110 section 5.6.7), such as `Sun, 06 Nov 1994 08:49:37 GMT`.
func isIMFFixdate(_ text: String) -> Bool {
    let pattern = #"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$"#
    return text.range(of: pattern, options: .regularExpression) != nil
}
