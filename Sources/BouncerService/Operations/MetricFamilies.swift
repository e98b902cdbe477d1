/// A metric family as declared: its name, kind, help, label names and (histograms) buckets.
struct MetricDefinition: Sendable {
    let name: String
    let kind: Metrics.Kind
    let help: String
    let labelNames: [String]
    let buckets: [Double]
}

/// How many labels a family's samples carry: the type of a `Counter` says it, so a sample with
/// the wrong number cannot be written.
enum NoLabels {}
enum OneLabel {}
enum TwoLabels {}

/// A counter family, usable only as its labels allow (`Metrics.add`).
struct Counter<Labels>: Sendable {
    let definition: MetricDefinition
}

extension Counter where Labels == NoLabels {
    init(_ name: String, _ help: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [], buckets: [])
    }
}

extension Counter where Labels == OneLabel {
    init(_ name: String, _ help: String, label: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [label], buckets: [])
    }
}

extension Counter where Labels == TwoLabels {
    init(_ name: String, _ help: String, labels first: String, _ second: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [first, second], buckets: [])
    }
}

/// A gauge family without labels, set to its latest value (`Metrics.set`).
struct Gauge: Sendable {
    let definition: MetricDefinition

    init(_ name: String, _ help: String) {
        definition = MetricDefinition(name: name, kind: .gauge, help: help, labelNames: [], buckets: [])
    }
}

/// A histogram family without labels (`Metrics.observe`).
struct Histogram: Sendable {
    let definition: MetricDefinition

    init(_ name: String, _ help: String, buckets: [Double] = Metrics.latencyBuckets) {
        definition = MetricDefinition(name: name, kind: .histogram, help: help, labelNames: [], buckets: buckets)
    }
}
