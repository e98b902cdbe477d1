import Foundation
import Locking
import Testing
import TestSupport
@testable import HTTPServer

@Suite("Event loop: work handed over from other threads")
struct EventLoopTests {
    @Test("tasks from many threads all run, on the loop's thread, each thread's in the order it gave them",
          arguments: [Duration.zero, .microseconds(10), .milliseconds(1)])
    func tasksRunOnTheLoopInOrder(pollBeforeSleep: Duration) async throws {
        let loop = try EventLoop(label: "test.loop", pollBeforeSleep: pollBeforeSleep)
        defer { loop.stop() }
        let threads = 4
        let perThread = 2_000
        let seen = Locked<[[Int]]>(Array(repeating: [], count: threads))
        let offLoop = Locked(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                loop.execute {
                    if !loop.isCurrent { offLoop.withLock { $0 += 1 } }
                    seen.withLock { $0[thread].append(index) }
                }
            }
        }
        #expect(try await waitUntil { seen.withLock { $0.allSatisfy { $0.count == perThread } } })
        #expect(seen.withLock { $0 } == Array(repeating: Array(0..<perThread), count: threads))
        #expect(offLoop.withLock { $0 } == 0)
    }

    @Test("a task given while the loop waits with nothing to do wakes it at once, after busy times too",
          arguments: [Duration.zero, .microseconds(10), .milliseconds(1)])
    func anIdleLoopWakesForATask(pollBeforeSleep: Duration) async throws {
        let loop = try EventLoop(label: "test.loop", pollBeforeSleep: pollBeforeSleep)
        defer { loop.stop() }
        for round in 0..<3 {
            // A busy spell: tasks one after another, each given once the last has run, so the
            // loop runs dry between them and learns that looking pays.
            let done = Locked(0)
            let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(5))
            for index in 0..<200 {
                loop.execute { done.withLock { $0 += 1 } }
                while done.withLock({ $0 }) <= index && ContinuousClock.now < deadline {}
            }
            #expect(done.withLock { $0 } == 200)
            try await Task.sleep(for: .milliseconds(50))  // the loop is blocked in epoll_wait by now
            let ran = Locked(false)
            loop.execute { ran.withLock { $0 = true } }
            #expect(try await waitUntil(TestTiming.scaled(.seconds(1))) { ran.withLock { $0 } }, "round \(round)")
        }
    }

    @Test("after stop, tasks no longer run and giving one is harmless")
    func aStoppedLoopRunsNothing() async throws {
        let loop = try EventLoop(label: "test.loop")
        let stopped = Locked(false)
        loop.stop()
        loop.execute { stopped.withLock { $0 = true } }  // queued behind the stop: never run
        try await Task.sleep(for: .milliseconds(100))
        loop.execute { stopped.withLock { $0 = true } }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!stopped.withLock { $0 })
    }
}
