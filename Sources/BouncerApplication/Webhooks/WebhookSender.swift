import CCurl
import Foundation
import Locking

/// POSTs deliveries (and PUTs the Matrix homeserver's redactions) over HTTP(S) with libcurl, each on one of a fixed set of threads (a blocking
/// transfer holds its thread, never one of the service's shared ones). An attempt is bounded in
/// time (`timeout`, connecting included); at most `maxResponseBytes` of a response body are
/// read (only the status counts); redirects are not followed (a receiver's 3xx is an answer like
/// any other that is not 2xx); only http and https are spoken. Unless `allowPrivate`, a socket to
/// an address that is not public is never opened: the address libcurl is about to connect to is
/// checked, so a name that resolved to a public address when the URL was registered and to a
/// private one now (DNS rebinding) is refused all the same.
package final class WebhookSender: Sendable {
    package struct Outcome: Sendable, Equatable {
        /// The response's status; nil when none came.
        package var status: Int?
        /// Why no response came, or nil.
        package var error: String?
    }

    private struct Job {
        var method: String
        var url: String
        var headers: [String: String]
        var body: [UInt8]
        var done: @Sendable (Outcome) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var closed = false
    }

    private let timeout: Duration
    private let allowPrivate: Bool
    private let queue = Locked(Queue())
    private let ready = DispatchSemaphore(value: 0)
    private let threads: Int
    package static let maxResponseBytes = 64 * 1024

    private static let initialized: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// `threads`: transfers at once (the dispatcher never asks for more).
    package init(timeout: Duration = .seconds(10), threads: Int = 16, allowPrivate: Bool = false) {
        _ = Self.initialized
        self.timeout = timeout
        self.allowPrivate = allowPrivate
        self.threads = threads
        for index in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = "bouncer.webhooks.\(index)"
            thread.start()
        }
    }

    package func post(_ url: URL, headers: [String: String], body: [UInt8]) async -> Outcome {
        await send("POST", url, headers: headers, body: body)
    }

    /// A request of `method` (POST or PUT) with `body`.
    package func send(_ method: String, _ url: URL, headers: [String: String], body: [UInt8]) async -> Outcome {
        await withCheckedContinuation { continuation in
            let accepted = queue.withLock { queue -> Bool in
                guard !queue.closed else { return false }
                queue.jobs.append(Job(method: method, url: url.absoluteString, headers: headers, body: body) { continuation.resume(returning: $0) })
                return true
            }
            if accepted {
                ready.signal()
            } else {
                continuation.resume(returning: Outcome(status: nil, error: "the service is shutting down"))
            }
        }
    }

    /// Ends the threads once the transfers under way are done; later posts fail at once.
    package func close() {
        queue.withLock { $0.closed = true }
        for _ in 0..<threads { ready.signal() }
    }

    private func work() {
        // One handle a thread, reset for each transfer: it keeps its connections open, so
        // deliveries to one receiver do not each connect (and handshake TLS) again.
        let handle = curl_easy_init()
        defer { if let handle { curl_easy_cleanup(handle) } }
        while true {
            ready.wait()
            let job = queue.withLock { queue -> Job? in queue.jobs.isEmpty ? nil : queue.jobs.removeFirst() }
            guard let job else {
                if queue.withLock({ $0.closed }) { return }
                continue
            }
            guard let handle else {
                job.done(Outcome(status: nil, error: "libcurl could not start a transfer"))
                continue
            }
            curl_easy_reset(handle)
            job.done(perform(job, on: handle))
        }
    }

    /// One blocking transfer.
    private func perform(_ job: Job, on handle: UnsafeMutableRawPointer) -> Outcome {
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in job.headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        // No `Expect: 100-continue` round trip for larger bodies.
        headerList = curl_slist_append(headerList, "Expect:")
        defer { curl_slist_free_all(headerList) }
        var received = 0
        var refused = false
        let milliseconds = Int(timeout / .milliseconds(1))
        let code: CURLcode = job.body.withUnsafeBufferPointer { body in
            withUnsafeMutablePointer(to: &refused) { refusal in
            withUnsafeMutablePointer(to: &received) { counter in
                if !allowPrivate {
                    bouncer_curl_set_open_socket(handle, { context, _, address in
                        guard let address else { return CURL_SOCKET_BAD }
                        var bytes = [UInt8](repeating: 0, count: 16)
                        let count = Int(bouncer_curl_address(address, &bytes))
                        guard count > 0, WebhookAddress.isPublic(Array(bytes.prefix(count))) else {
                            context?.assumingMemoryBound(to: Bool.self).pointee = true
                            return CURL_SOCKET_BAD
                        }
                        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
                    }, refusal)
                }
                bouncer_curl_set_string(handle, CURLOPT_URL, job.url)
                bouncer_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                bouncer_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                bouncer_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                bouncer_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
                bouncer_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
                // No proxy: libcurl would otherwise take one from `http_proxy` and its kin in the
                // environment, and deliver through a host the address check above never sees.
                bouncer_curl_set_string(handle, CURLOPT_PROXY, "")
                bouncer_curl_set_long(handle, CURLOPT_POST, 1)
                if job.method != "POST" { bouncer_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, job.method) }
                bouncer_curl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
                bouncer_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                bouncer_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList)
                bouncer_curl_set_pointer(handle, CURLOPT_WRITEDATA, counter)
                bouncer_curl_set_write_function(handle) { _, size, count, context in
                    // The body is counted, not kept; past the limit the transfer stops.
                    let bytes = size * count
                    let total = context!.assumingMemoryBound(to: Int.self)
                    total.pointee += bytes
                    return total.pointee > WebhookSender.maxResponseBytes ? 0 : bytes
                }
                return curl_easy_perform(handle)
            }
            }
        }
        if refused { return Outcome(status: nil, error: "refused: the host resolves to a loopback or private address") }
        var status = 0
        bouncer_curl_response_code(handle, &status)
        // A status read before the body was cut off (too long) still counts.
        if status > 0 && (code == CURLE_OK || code == CURLE_WRITE_ERROR) { return Outcome(status: status, error: nil) }
        return Outcome(status: nil, error: code == CURLE_OPERATION_TIMEDOUT ? "timed out" : String(cString: curl_easy_strerror(code)))
    }
}
