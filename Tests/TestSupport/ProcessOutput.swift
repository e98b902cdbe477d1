import Foundation

extension Process {
    /// Runs the process to its end; returns its exit status and its output and errors together.
    public func runCapturingOutput() throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        standardOutput = pipe
        standardError = pipe
        try run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        waitUntilExit()
        return (terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
