import Foundation
import Testing
import TestSupport

@Suite struct DescriptorExhaustionTests {
    /// With far fewer file descriptors than clients, the server neither crashes nor stops: the
    /// clients it cannot take wait in the backlog, and it serves again once descriptors free up.
    @Test func runningOutOfDescriptorsIsSurvived() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")], openFileLimit: 48)
            var crowd: [RawHTTPClient] = []
            for _ in 0..<120 {
                crowd.append(try service.client())
            }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(service.process.isRunning)
            #expect(service.text.contains("out of file descriptors"))
            crowd.removeAll()
            // Accepting resumes after its pause; the first new client may still queue behind the
            // closed crowd for a moment.
            var status: Int?
            let deadline = ContinuousClock.now + .seconds(5)
            while status != 200 && ContinuousClock.now < deadline {
                status = try? service.client().request("GET", "/healthz").status
                if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
            }
            #expect(status == 200)
            #expect(service.process.isRunning)
        }
    }
}
