import Dispatch
import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct MetricsRenderTests {
    @Test func samplesAreKeptByTheirLabelValuesHoweverTheyAreGiven() {
        let metrics = Metrics()
        let things = Counter<OneLabel>("things_total", "Things.", label: "kind")
        metrics.declare(things.definition)
        metrics.add(things, "b")
        metrics.add(things, "b", 2)
        metrics.add(things, "a")
        metrics.add(things, "")
        metrics.set(Gauge("level", "A level."), 7)
        metrics.requestCompleted(route: "/x", method: "GET", status: 200, seconds: 0.002)
        metrics.requestCompleted(route: "/x", method: "BREW", status: 405, seconds: 0.002)
        let lines = metrics.render().split(separator: "\n").map(String.init)
        // One series a label value, in order; an empty value is a value of its own.
        #expect(lines.filter { $0.hasPrefix("things_total{") } == [
            #"things_total{kind=""} 1"#, #"things_total{kind="a"} 1"#, #"things_total{kind="b"} 3"#,
        ])
        #expect(lines.contains("level 7"))
        #expect(lines.contains(#"bouncer_http_requests_total{route="/x",method="GET",status="200"} 1"#))
        #expect(lines.contains(#"bouncer_http_requests_total{route="/x",method="other",status="405"} 1"#))
        #expect(lines.contains(#"bouncer_http_request_duration_seconds_bucket{route="/x",le="0.0025"} 2"#))
        #expect(lines.contains(#"bouncer_http_request_duration_seconds_count{route="/x"} 2"#))
    }

    /// A family used before it was declared is declared by its use: no sample is dropped. A
    /// declared family without labels reads 0 before its first sample.
    @Test func noSampleIsDroppedAndDeclaredFamiliesReadZero() {
        let metrics = Metrics.service()
        metrics.add(Counter<TwoLabels>("pairs_total", "Pairs.", labels: "left", "right"), "a", "b", 3)
        metrics.observe(Histogram("waits_seconds", "Waits.", buckets: [1, 2]), 1.5)
        let lines = metrics.render().split(separator: "\n").map(String.init)
        #expect(lines.contains(#"pairs_total{left="a",right="b"} 3"#))
        #expect(lines.contains(#"waits_seconds_bucket{le="1"} 0"#) && lines.contains(#"waits_seconds_bucket{le="2"} 1"#))
        #expect(lines.contains("# TYPE pairs_total counter"))
        for metric in ServiceMetric.all {
            #expect(lines.contains("# TYPE \(metric.name) \(metric.kind.rawValue)"), "\(metric.name) is declared")
            if metric.labelNames.isEmpty, metric.kind != .histogram { #expect(lines.contains("\(metric.name) 0")) }
        }
    }

    /// Each thread counts its requests apart: a scrape adds every thread's counts together.
    @Test func requestsCountedOnManyThreadsAddUpWhenScraped() {
        let metrics = Metrics()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<1000 {
                metrics.requestCompleted(route: "/x", method: "GET", status: index % 2 == 0 ? 200 : 404, seconds: thread == 0 ? 0.0001 : 0.2)
            }
        }
        let lines = metrics.render().split(separator: "\n").map(String.init)
        #expect(lines.contains(#"bouncer_http_requests_total{route="/x",method="GET",status="200"} 4000"#))
        #expect(lines.contains(#"bouncer_http_requests_total{route="/x",method="GET",status="404"} 4000"#))
        #expect(lines.contains(#"bouncer_http_request_duration_seconds_count{route="/x"} 8000"#))
        #expect(lines.contains(#"bouncer_http_request_duration_seconds_bucket{route="/x",le="0.0005"} 1000"#))
        #expect(lines.contains(#"bouncer_http_request_duration_seconds_bucket{route="/x",le="0.25"} 8000"#))
        #expect(lines.filter { $0.hasPrefix("# TYPE bouncer_http_requests_total ") } == ["# TYPE bouncer_http_requests_total counter"])
    }
}
