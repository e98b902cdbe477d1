import BouncerStore

/// A decision read, planned and applied until its plan meets the store as it was read: a plan is
/// `stale` when another write to the same message or user came first, and is then made again from
/// what the store holds now. Gives up (`PlanKeptGoingStale`, a 503) after a bounded number of tries.
package enum Replanning {
    package static func run<Snapshot: Sendable, Plan: Sendable, Value: Sendable>(
        _ what: String, read: () async throws -> Snapshot?, plan: (Snapshot) throws -> Plan,
        apply: (Plan) async throws -> Planned<Value>) async throws -> Value? {
        for _ in 0..<PlanKeptGoingStale.attempts {
            guard let snapshot = try await read() else { return nil }
            switch try await apply(try plan(snapshot)) {
            case .applied(let value): return value
            case .stale: continue
            }
        }
        throw PlanKeptGoingStale(what: what)
    }
}
