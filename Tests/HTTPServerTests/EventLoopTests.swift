import Foundation
import Locking
import Testing
import TestSupport
@testable import HTTPServer

@Suite("Event loop: work handed over from other threads")
struct EventLoopTests {
    @Test("tasks from many threads all run, on the loop's thread, each thread's in the order it gave them")
    func tasksRunOnTheLoopInOrder() async throws {
        let loop = try EventLoop(label: "test.loop")
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

    @Test("a task given while the loop waits with nothing to do wakes it at once")
    func anIdleLoopWakesForATask() async throws {
        let loop = try EventLoop(label: "test.loop")
        defer { loop.stop() }
        try await Task.sleep(for: .milliseconds(50))  // the loop is blocked in epoll_wait by now
        let ran = Locked(false)
        loop.execute { ran.withLock { $0 = true } }
        #expect(try await waitUntil(.seconds(1)) { ran.withLock { $0 } })
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
