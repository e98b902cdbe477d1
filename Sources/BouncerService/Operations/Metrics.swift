import Foundation
import Locking

/// Counters, gauges and histograms in the Prometheus text format (version 0.0.4). Families are
/// declared once with their help and buckets; samples are keyed by their label values.
final class Metrics: Sendable {
    enum Kind: String, Sendable {
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

    /// Cumulative bucket counts (one per upper bound), and the sum and count of what was observed.
    private struct HistogramSample {
        var buckets: [Double]
        var sum: Double = 0
        var count: Double = 0

        mutating func observe(_ value: Double, _ bounds: [Double]) {
            for (index, bound) in bounds.enumerated() where value <= bound { buckets[index] += 1 }
            sum += value
            count += 1
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

    static let latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    init() {
        requests = Family(kind: .counter, help: "HTTP requests answered, by route, method and status.",
                          labelNames: ["route", "method", "status"], buckets: [])
        requestDurations = Family(kind: .histogram, help: "Time from a request's head to its response, by route.",
                                  labelNames: ["route"], buckets: Self.latencyBuckets)
        families = Locked(["bouncer_http_requests_total": requests, "bouncer_http_request_duration_seconds": requestDurations])
    }

    func declare(_ name: String, _ kind: Kind, _ help: String, labels: [String] = [], buckets: [Double] = latencyBuckets) {
        families.withLock { families in
            if families[name] == nil {
                families[name] = Family(kind: kind, help: help, labelNames: labels, buckets: kind == .histogram ? buckets : [])
            }
        }
    }

    func add(_ name: String, _ labels: [String] = [], _ amount: Double = 1) {
        let labels = LabelValues(labels)
        families.withLock { $0[name]?.add(amount, labels) }
    }

    /// `add` for a family with one label, without an array for it: for every message sent.
    func add(_ name: String, label: String, _ amount: Double = 1) {
        let labels = LabelValues(label)
        families.withLock { $0[name]?.add(amount, labels) }
    }

    func set(_ name: String, _ labels: [String] = [], _ value: Double) {
        let labels = LabelValues(labels)
        families.withLock { $0[name]?.values[labels] = value }
    }

    func observe(_ name: String, _ labels: [String] = [], _ value: Double) {
        let labels = LabelValues(labels)
        families.withLock { $0[name]?.observe(value, labels) }
    }

    /// A request answered: its count by route, method and status, and its duration by route,
    /// under one lock (this runs for every request).
    func requestCompleted(route: String, method: String, status: Int, seconds: Double) {
        // A client can send any token as its method, and each new label value would be a series
        // kept for good: methods outside the standard ones are counted together.
        let methodLabel = switch method {
        case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE": method
        default: "other"
        }
        let counted = LabelValues(route, methodLabel, String(status))
        let timed = LabelValues(route)
        families.withLock { _ in
            requests.add(1, counted)
            requestDurations.observe(seconds, timed)
        }
    }

    func gauge(_ name: String, _ help: String, read: @escaping @Sendable () -> Double) {
        readers.withLock { $0.append((name, help, read)) }
    }

    /// Everything, as a scrape answers it; `extra` gauges are read just now.
    func render(extra: [(name: String, help: String, value: Double)] = []) -> String {
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
                for (index, bound) in family.buckets.enumerated() {
                    text += name + "_bucket" + Self.labelText(family.labelNames + ["le"], labels + [Self.number(bound)])
                        + " " + Self.number(sample.buckets[index]) + "\n"
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
struct LabelValues: Hashable, Sendable {
    private let first: String
    private let second: String
    private let third: String
    private let count: Int

    init() { (first, second, third, count) = ("", "", "", 0) }
    init(_ first: String) { (self.first, second, third, count) = (first, "", "", 1) }
    init(_ first: String, _ second: String, _ third: String) {
        (self.first, self.second, self.third, count) = (first, second, third, 3)
    }
    init(_ values: [String]) {
        precondition(values.count <= 3, "a metric family has at most three labels")
        first = values.count > 0 ? values[0] : ""
        second = values.count > 1 ? values[1] : ""
        third = values.count > 2 ? values[2] : ""
        count = values.count
    }

    /// The values in order, for rendering.
    var list: [String] { Array([first, second, third].prefix(count)) }
}

/// The service's metric families, declared in one place.
extension Metrics {
    static func service() -> Metrics {
        // The request families are every Metrics' own (see init).
        let metrics = Metrics()
        metrics.declare("bouncer_messages_total", .counter, "Messages sent, by the verdict of the rules (none, or the deciding action).",
                        labels: ["verdict"])
        metrics.declare("bouncer_rule_matches_total", .counter,
                        "Rule matches in messages sent or edited, by the rules' mode (each rule's own: GET /v1/rules/stats).", labels: ["mode"])
        metrics.declare("bouncer_store_commit_batch_size", .histogram, "Writes grouped into one committed transaction.",
                        buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        metrics.declare("bouncer_store_commit_duration_seconds", .histogram, "Time to run and commit one group of writes.")
        metrics.declare("bouncer_store_checkpoint_duration_seconds", .histogram,
                        "Time to copy the write-ahead log into the database file, between two groups.")
        metrics.declare("bouncer_store_channel_copy_failures_total", .counter,
                        "Batches of new messages that could not be copied into channel_messages (tried again with the next).")
        metrics.declare("bouncer_store_wal_frames", .gauge, "Frames in the write-ahead log at the last checkpoint.")
        metrics.declare("bouncer_store_wal_checkpointed_frames", .gauge,
                        "Of those, frames copied into the database file (fewer while readers still need the rest).")
        metrics.declare("bouncer_store_unavailable_total", .counter,
                        "Requests refused with 503 store_unavailable: the store's disk was full or failing.")
        metrics.declare("bouncer_store_conflicts_total", .counter,
                        "Requests refused with 503 store_unavailable after their write lost to other instances' (serialization failures, deadlocks) past every retry.")
        metrics.declare("bouncer_rules_compile_duration_seconds", .histogram, "Time to compile a rule set.",
                        buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10])
        metrics.declare("bouncer_rules", .gauge, "Rules in the rule set in force.")
        metrics.declare("bouncer_shared_state_reloads_total", .counter,
                        "Changes another instance made (rules, settings, overrides, bans) reloaded and put in force here.",
                        labels: ["topic"])
        metrics.declare("bouncer_rules_database_bytes", .gauge, "Size of the compiled rule databases in force.")
        metrics.declare("bouncer_webhook_attempts_total", .counter, "Webhook delivery attempts, by outcome (delivered, failed).",
                        labels: ["outcome"])
        metrics.declare("bouncer_matrix_callbacks_total", .counter,
                        "Matrix spam-checker callbacks answered, by what they were (message, edit, redaction, encrypted, other, user_action, unmoderated) and the answer (allowed, refused, unavailable).",
                        labels: ["kind", "answer"])
        metrics.declare("bouncer_matrix_homeserver_calls_total", .counter,
                        "Calls to the Matrix homeserver that carry decisions back (redact, ban, unban), by outcome (done, failed).",
                        labels: ["call", "outcome"])
        metrics.declare("bouncer_integration_copies_lost_total", .counter,
                        "Chat servers' clean messages allowed before their copy was committed, whose copy then could not be kept.")
        metrics.declare("bouncer_stream_hooks_total", .counter,
                        "Stream Before Message Send hooks answered, by what the message became (unchanged, masked, error).", labels: ["answer"])
        return metrics
    }
}
