/// A metric family as declared: its name, kind, help, label names and (histograms) buckets.
package struct MetricDefinition: Sendable {
    package let name: String
    package let kind: Metrics.Kind
    package let help: String
    package let labelNames: [String]
    package let buckets: [Double]
}

/// How many labels a family's samples carry: the type of a `Counter` says it, so a sample with
/// the wrong number cannot be written.
package enum NoLabels {}
package enum OneLabel {}
package enum TwoLabels {}

/// A counter family, usable only as its labels allow (`Metrics.add`).
package struct Counter<Labels>: Sendable {
    package let definition: MetricDefinition
}

extension Counter where Labels == NoLabels {
    package init(_ name: String, _ help: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [], buckets: [])
    }
}

extension Counter where Labels == OneLabel {
    package init(_ name: String, _ help: String, label: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [label], buckets: [])
    }
}

extension Counter where Labels == TwoLabels {
    package init(_ name: String, _ help: String, labels first: String, _ second: String) {
        definition = MetricDefinition(name: name, kind: .counter, help: help, labelNames: [first, second], buckets: [])
    }
}

/// A gauge family without labels, set to its latest value (`Metrics.set`).
package struct Gauge: Sendable {
    package let definition: MetricDefinition

    package init(_ name: String, _ help: String) {
        definition = MetricDefinition(name: name, kind: .gauge, help: help, labelNames: [], buckets: [])
    }
}

/// A histogram family without labels (`Metrics.observe`).
package struct Histogram: Sendable {
    package let definition: MetricDefinition

    package init(_ name: String, _ help: String, buckets: [Double] = Metrics.latencyBuckets) {
        definition = MetricDefinition(name: name, kind: .histogram, help: help, labelNames: [], buckets: buckets)
    }
}
