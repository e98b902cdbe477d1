import Foundation
import Locking

/// Counters, gauges and histograms in the Prometheus text format (version 0.0.4). Families are
/// declared once with their help and buckets; samples are keyed by their label values.
package final class Metrics: Sendable {
    package enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// A class, changed where it is stored: updating a struct inside the dictionary of families
    /// goes through nested accessors that allocate on every request. Only touched under the lock.
    private final class Family: @unchecked Sendable {
        let kind: Kind
        let help: String
        let labelNames: [String]
        let buckets: [Double]
        /// Label values -> value (counters, gauges) or bucket counts + sum + count (histograms).
        var values: [LabelValues: Double] = [:]
        var histograms: [LabelValues: HistogramSample] = [:]

        init(kind: Kind, help: String, labelNames: [String], buckets: [Double]) {
            self.kind = kind
            self.help = help
            self.labelNames = labelNames
            self.buckets = buckets
        }

        func add(_ amount: Double, _ labels: LabelValues) {
            values[labels, default: 0] += amount
        }

        /// Changed where it is stored: a copy taken out and put back would copy its buckets on
        /// every request.
        func observe(_ value: Double, _ labels: LabelValues) {
            histograms[labels, default: HistogramSample(buckets: Array(repeating: 0, count: buckets.count))].observe(value, buckets)
        }

        /// A copy, for rendering outside the lock.
        func snapshot() -> Family {
            let copy = Family(kind: kind, help: help, labelNames: labelNames, buckets: buckets)
            copy.values = values
            copy.histograms = histograms
            return copy
        }
    }

    /// What was observed: how many fell in each bucket (one per upper bound, each counting only
    /// what is above the bound before it: an observation adds to one bucket, not to every bucket
    /// above it), and their sum and count. `cumulative` gives Prometheus's counts.
    private struct HistogramSample {
        var buckets: [Double]
        var sum: Double = 0
        var count: Double = 0

        mutating func observe(_ value: Double, _ bounds: [Double]) {
            if let index = bounds.firstIndex(where: { value <= $0 }) { buckets[index] += 1 }
            sum += value
            count += 1
        }

        /// Each bound's count of what was at most that bound.
        var cumulative: [Double] {
            var total = 0.0
            return buckets.map { count in
                total += count
                return total
            }
        }
    }

    /// Every family by name; each family's samples change only under this lock.
    private let families: Locked<[String: Family]>
    /// The two families every request adds to, kept at hand: looking them up by name cost two
    /// string hashes a request.
    private let requests: Family
    private let requestDurations: Family
    /// Gauges read when scraped, from state that lives elsewhere (open connections).
    private let readers = Locked<[(name: String, help: String, read: @Sendable () -> Double)]>([])

    package static let latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    package init() {
        requests = Family(kind: .counter, help: "HTTP requests answered, by route, method and status.",
                          labelNames: ["route", "method", "status"], buckets: [])
        requestDurations = Family(kind: .histogram, help: "Time from a request's head to its response, by route.",
                                  labelNames: ["route"], buckets: Self.latencyBuckets)
        families = Locked(["bouncer_http_requests_total": requests, "bouncer_http_request_duration_seconds": requestDurations])
    }

    /// Declares `metric`, so that a family without labels reads 0 before its first sample. A
    /// family used before it is declared is declared then: a sample is never dropped.
    package func declare(_ metric: MetricDefinition) {
        families.withLock { families in _ = Self.family(metric, in: &families) }
    }

    package func add(_ counter: Counter<NoLabels>, _ amount: Double = 1) {
        record(counter.definition, LabelValues()) { $0.add(amount, $1) }
    }

    package func add(_ counter: Counter<OneLabel>, _ label: String, _ amount: Double = 1) {
        record(counter.definition, LabelValues(label)) { $0.add(amount, $1) }
    }

    package func add(_ counter: Counter<TwoLabels>, _ first: String, _ second: String, _ amount: Double = 1) {
        record(counter.definition, LabelValues(first, second)) { $0.add(amount, $1) }
    }

    package func set(_ gauge: Gauge, _ value: Double) {
        record(gauge.definition, LabelValues()) { $0.values[$1] = value }
    }

    package func observe(_ histogram: Histogram, _ value: Double) {
        record(histogram.definition, LabelValues()) { $0.observe(value, $1) }
    }

    private func record(_ metric: MetricDefinition, _ labels: LabelValues, _ change: (Family, LabelValues) -> Void) {
        families.withLock { families in change(Self.family(metric, in: &families), labels) }
    }

    private static func family(_ metric: MetricDefinition, in families: inout [String: Family]) -> Family {
        if let family = families[metric.name] { return family }
        let family = Family(kind: metric.kind, help: metric.help, labelNames: metric.labelNames,
                            buckets: metric.kind == .histogram ? metric.buckets : [])
        families[metric.name] = family
        return family
    }

    /// A request answered: its count by route, method and status, and its duration by route,
    /// under one lock (this runs for every request).
    package func requestCompleted(route: String, method: String, status: Int, seconds: Double) {
        // A client can send any token as its method, and each new label value would be a series
        // kept for good: methods outside the standard ones are counted together.
        let methodLabel = switch method {
        case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE": method
        default: "other"
        }
        let statusLabel = Self.statusLabels.indices.contains(status) ? Self.statusLabels[status] : String(status)
        let counted = LabelValues(route, methodLabel, statusLabel)
        let timed = LabelValues(route)
        families.withLock { _ in
            requests.add(1, counted)
            requestDurations.observe(seconds, timed)
        }
    }

    /// Status codes as label values, written once rather than for every request.
    private static let statusLabels = (0..<600).map { String($0) }

    package func gauge(_ name: String, _ help: String, read: @escaping @Sendable () -> Double) {
        readers.withLock { $0.append((name, help, read)) }
    }

    /// Everything, as a scrape answers it; `extra` gauges are read just now.
    package func render(extra: [(name: String, help: String, value: Double)] = []) -> String {
        var text = ""
        let read = readers.withLock { $0 }.map { ($0.name, $0.help, $0.read()) }
        for (name, help, value) in read + extra {
            text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(Self.number(value))\n"
        }
        let snapshot = families.withLock { $0.mapValues { $0.snapshot() } }
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind.rawValue)\n"
            // A family without labels has one series: it reads 0 before its first sample, so a
            // rate or an alert over it has a value from the first scrape.
            if family.labelNames.isEmpty, family.values.isEmpty, family.histograms.isEmpty {
                if family.kind == .histogram {
                    family.histograms[LabelValues()] = HistogramSample(buckets: family.buckets.map { _ in 0 })
                } else {
                    family.values[LabelValues()] = 0
                }
            }
            for key in family.values.keys.sorted(by: { $0.list.lexicographicallyPrecedes($1.list) }) {
                text += name + Self.labelText(family.labelNames, key.list) + " " + Self.number(family.values[key]!) + "\n"
            }
            for key in family.histograms.keys.sorted(by: { $0.list.lexicographicallyPrecedes($1.list) }) {
                let sample = family.histograms[key]!
                let labels = key.list
                let cumulative = sample.cumulative
                for (index, bound) in family.buckets.enumerated() {
                    text += name + "_bucket" + Self.labelText(family.labelNames + ["le"], labels + [Self.number(bound)])
                        + " " + Self.number(cumulative[index]) + "\n"
                }
                text += name + "_bucket" + Self.labelText(family.labelNames + ["le"], labels + ["+Inf"]) + " " + Self.number(sample.count) + "\n"
                text += name + "_sum" + Self.labelText(family.labelNames, labels) + " " + Self.number(sample.sum) + "\n"
                text += name + "_count" + Self.labelText(family.labelNames, labels) + " " + Self.number(sample.count) + "\n"
            }
        }
        return text
    }

    private static func labelText(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func number(_ value: Double) -> String {
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// A sample's label values, at most three, held in place: counting a request builds no array.
package struct LabelValues: Hashable, Sendable {
    private let first: String
    private let second: String
    private let third: String
    private let count: Int

    package init() { (first, second, third, count) = ("", "", "", 0) }
    package init(_ first: String) { (self.first, second, third, count) = (first, "", "", 1) }
    package init(_ first: String, _ second: String) { (self.first, self.second, third, count) = (first, second, "", 2) }
    package init(_ first: String, _ second: String, _ third: String) {
        (self.first, self.second, self.third, count) = (first, second, third, 3)
    }
    /// The values in order, for rendering.
    package var list: [String] { Array([first, second, third].prefix(count)) }
}

/// The service's metric families, declared in one place.
extension Metrics {
    package static func service() -> Metrics {
        // The request families are every Metrics' own (see init).
        let metrics = Metrics()
        for metric in ServiceMetric.all { metrics.declare(metric) }
        return metrics
    }
}
