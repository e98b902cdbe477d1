import Foundation

/// How much longer than usual the tests wait for the service. Under a sanitizer everything runs
/// several times slower; `make test-sanitize` sets `BOUNCER_TEST_TIME_SCALE` so that waiting at
/// most N seconds for an answer stays a bound on a hang, not a race with the sanitizer.
public enum TestTiming {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["BOUNCER_TEST_TIME_SCALE"], let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    public static func scaled(_ duration: Duration) -> Duration { duration * scale }
}
