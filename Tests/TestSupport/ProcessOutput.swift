import Foundation

/// A command the tests ran did not end within its time; it was killed.
public struct ProcessTimedOut: Error, CustomStringConvertible {
    public var command: String
    public var timeout: Duration
    public var output: String
    public var description: String { "\(command) did not end within \(timeout) and was killed; its output: \(output)" }
}

extension Process {
    /// Runs the process to its end; returns its exit status and its output and errors together.
    /// A command that has not ended within `timeout` (scaled, as every wait of the tests) is
    /// killed and the test fails with what it printed, rather than waiting on it forever.
    public func runCapturingOutput(timeout: Duration = .seconds(120)) throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        standardOutput = pipe
        standardError = pipe
        try run()
        let limit = TestTiming.scaled(timeout)
        let deadline = ContinuousClock.now + limit
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var entry = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        reading: while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                kill(processIdentifier, SIGKILL)
                _ = waitForEnd()
                let command = ([executableURL?.lastPathComponent ?? "?"] + (arguments ?? [])).joined(separator: " ")
                throw ProcessTimedOut(command: command, timeout: limit, output: String(decoding: output, as: UTF8.self))
            }
            guard poll(&entry, 1, Int32(max(1, remaining / .milliseconds(1)))) > 0 else { continue }   // the time is up, or EINTR
            let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case 1...: output.append(contentsOf: chunk[0..<count])
            default: if errno != EINTR && errno != EAGAIN { break reading }
            }
        }
        return (waitForEnd(), String(decoding: output, as: UTF8.self))
    }

    /// Waits for the child to end and returns its exit status (128 + the signal that ended it).
    /// Not `waitUntilExit`: that spins the calling thread's run loop until Foundation's reaper has
    /// run, and the reaper needs a worker of the thread pool the tests' tasks run on. Two tests
    /// that ended at once on a two-core machine spun both workers, the reaper never ran, and the
    /// run hung with the killed services left as zombies.
    public func waitForEnd() -> Int32 {
        let pid = processIdentifier
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid { return exitCode(waitStatus: status) }
            if result == -1 && errno == EINTR { continue }
            // Foundation's reaper took it first: its status is Foundation's to tell.
            while isRunning { Thread.sleep(forTimeInterval: 0.005) }
            return terminationStatus
        }
    }
}

/// Runs `executable` with `arguments` to its end without Foundation's `Process`, its output and
/// errors into the file at `outputPath`; returns its exit status. For a program that leaves a
/// daemon behind (a database server): `Process` learns that its child ended when a descriptor the
/// child inherited closes, which the daemon may keep open, and while it waits on that child it
/// cannot follow the others.
public func runToEnd(_ executable: String, _ arguments: [String], outputPath: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return exitCode(waitStatus: status)
}

/// A child's exit status as a shell tells it, from what `waitpid` reported: its exit code, or 128
/// and the signal that ended it.
func exitCode(waitStatus status: Int32) -> Int32 {
    status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}
