import Testing
@testable import BouncerService

@Suite struct MetricsRenderTests {
    @Test func samplesAreKeptByTheirLabelValuesHoweverTheyAreGiven() {
        let metrics = Metrics()
        metrics.declare("things_total", .counter, "Things.", labels: ["kind"])
        metrics.declare("level", .gauge, "A level.")
        metrics.add("things_total", label: "b")
        metrics.add("things_total", ["b"], 2)
        metrics.add("things_total", label: "a")
        metrics.add("things_total", label: "")
        metrics.set("level", [], 7)
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
}
