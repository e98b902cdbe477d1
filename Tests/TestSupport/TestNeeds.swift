import Foundation
import Testing

/// What a black-box suite needs of the run, declared on the suite: each `make test` step runs
/// the suites whose needs it meets, and the others say why they did not run.
extension Trait where Self == ConditionTrait {
    /// The suite is about the one process it starts (its start, signals, descriptors, counters,
    /// log, stream or commands): it does not run when the services are several instances on one
    /// database (`BOUNCER_TEST_INSTANCES`).
    public static var oneInstance: Self {
        .enabled(if: ServiceProcess.defaultInstances == 1, "about one process; not run against several instances")
    }

    /// The suite runs on PostgreSQL alone (`BOUNCER_TEST_STORE=postgres`).
    public static var postgresOnly: Self {
        .enabled(if: TestStore.isPostgres, "needs BOUNCER_TEST_STORE=postgres")
    }

    /// The suite loads the machine and times what it sees (a database server stopped and started
    /// under send load): it runs only in a step of its own (`BOUNCER_TEST_ALONE=1`), never beside
    /// other suites.
    public static var alone: Self {
        .enabled(if: ProcessInfo.processInfo.environment["BOUNCER_TEST_ALONE"] == "1", "times a load; runs in a step of its own")
    }
}
