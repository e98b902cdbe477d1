import BouncerApplication
import HTTPServer

/// The one table from the decisions' refusals to the API's problems.
extension ReviewRefusal {
    var problem: HTTPError {
        switch self {
        case .messageNotFound: MessageText.notFound
        }
    }
}

extension BanRefusal {
    var problem: HTTPError {
        switch self {
        case .ownCase: OwnCase.problem
        case .notBanned: HTTPError(.notFound, code: "ban_not_found", detail: "That user is not banned.").keyed("bans.not_banned")
        }
    }
}

extension AppealDecisionRefusal {
    var problem: HTTPError {
        switch self {
        case .notFound: HTTPError(.notFound, code: "appeal_not_found", detail: "There is no such appeal.")
        case .alreadyDecided: HTTPError(.conflict, code: "appeal_decided", detail: "This appeal has been decided already.")
        case .ownCase: OwnCase.problem
        }
    }
}
