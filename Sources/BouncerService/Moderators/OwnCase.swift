import BouncerApplication
import HTTPServer

/// Nobody decides their own case: a moderator's appeal of their own message or ban, or lifting a
/// ban on themselves.
enum OwnCase {
    /// 403 `own_case`: nobody decides their own case (lifts their own ban, decides their own appeal).
    static let problem = HTTPError(.forbidden, code: "own_case",
                                   detail: "Nobody decides their own case: another moderator or an admin must.")
}
