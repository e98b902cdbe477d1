import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import JSON

/// `strike_policy` in `/v1/config`: how long a strike counts, and the ban each count of active
/// strikes brings. Off (null) by default: strikes are still recorded, and ban nobody.
package struct StrikePolicy: Codable, Sendable, Equatable {
    package struct Step: Codable, Sendable, Equatable {
        package var strikes: Int
        /// Nil: for good.
        @Nullable package var ban_seconds: Int?

        package init(strikes: Int, ban_seconds: Int? = nil) {
            self.strikes = strikes
            self.ban_seconds = ban_seconds
        }
    }

    package var window_days: Int
    /// By `strikes`, ascending.
    package var steps: [Step]

    /// How long a strike counts when no policy is set.
    package static let defaultWindowDays = 30
    package static let maxWindowDays = 3650
    package static let maxSteps = 10
    package static let maxStrikes = 1000

    /// The step for a user with `active` strikes: the one with the highest count reached.
    package func step(for active: Int) -> Step? {
        steps.last { $0.strikes <= active }
    }

    package init(window_days: Int, steps: [Step]) {
        self.window_days = window_days
        self.steps = steps
    }
}
