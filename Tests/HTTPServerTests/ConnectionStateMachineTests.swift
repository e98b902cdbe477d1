import Testing
@testable import HTTPServer

/// The connection's timeouts and its answers to a drain, on a clock moved by hand: what the live
/// tests check through sockets and real waits, here exactly and at once.
@Suite("Connection state machine: timeouts and draining")
struct ConnectionStateMachineTests {
    /// The defaults but for a body idle timeout of 3 s, so that every timeout differs and the one
    /// that fires is known: header 10 s, body idle 3 s, keep-alive idle 60 s, write 30 s; past a
    /// grace of 10 s a body must average 1 KiB/s; a connection ended after a response lingers 5 s.
    static var limits: ServerLimits {
        var limits = ServerLimits()
        limits.bodyIdleTimeout = .seconds(3)
        return limits
    }

    @Test("a connection that sends nothing is closed after the header timeout, without a response")
    func silentConnection() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.wait(.milliseconds(9_999)) == [])
        #expect(connection.wait(.milliseconds(1)) == ["close"])
        #expect(connection.phase == .closed)
    }

    @Test("a head not complete within the header timeout of its first byte is answered 408, however its bytes trickle")
    func headerTimeout() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.wait(.seconds(4)) == [])
        #expect(connection.receivePartialHead() == "none")
        for _ in 0..<9 {
            #expect(connection.wait(.seconds(1)) == [])
            #expect(connection.receivePartialHead() == "none")
        }
        #expect(connection.wait(.milliseconds(999)) == [])
        #expect(connection.wait(.milliseconds(1)) == ["408 request_timeout"])
        #expect(connection.phase == .failing)
        #expect(!connection.isReading)
        #expect(connection.written() == "linger", "ended once the 408 is written, lingering for what the client still sends")
    }

    @Test("a complete head and then no body byte: 408 after the body idle timeout, not the header timeout")
    func stallBeforeTheBody() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.post(length: 10)) == "readBody")
        #expect(connection.wait(.milliseconds(2_999)) == [])
        #expect(connection.wait(.milliseconds(1)) == ["408 request_timeout"])
    }

    @Test("each read of a body pushes the body idle timeout out; a stall of that long is answered 408")
    func bodyIdleTimeout() {
        var limits = Self.limits
        limits.bodyRateGrace = .seconds(60)  // the idle timeout alone, not the minimum rate
        let connection = ConnectionHarness(limits: limits)
        #expect(connection.receiveHead(.post(length: 10)) == "readBody")
        for _ in 0..<4 {
            #expect(connection.wait(.seconds(2)) == [])
            #expect(connection.receiveBody(2) == "readBody")
        }
        #expect(connection.wait(.milliseconds(2_999)) == [], "8 s in all, well past the idle timeout of 3 s")
        #expect(connection.wait(.milliseconds(1)) == ["408 request_timeout"])
    }

    @Test("a deadline pushed out leaves the loop's wake-up where it was; when that comes, the next is set")
    func wakeUpsMoveOnlyEarlier() {
        let connection = ConnectionHarness(limits: Self.limits)
        let start = connection.now
        #expect(connection.deadlineDue == start + Duration.seconds(10).nanoseconds)
        #expect(connection.receiveHead(.post(length: 10)) == "readBody")
        #expect(connection.deadlineDue == start + Duration.seconds(3).nanoseconds, "the body idle timeout is earlier")
        #expect(connection.wait(.seconds(2)) == [])
        #expect(connection.receiveBody(1) == "readBody")
        #expect(connection.deadlineDue == start + Duration.seconds(3).nanoseconds)
        #expect(connection.wait(.seconds(1)) == [])
        #expect(connection.deadlineDue == start + Duration.seconds(5).nanoseconds)
    }

    @Test("at a deadline, input that arrived in time is read before the client is called late")
    func readsBeforeTimingOut() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.post(length: 10)) == "readBody")
        connection.advance(.seconds(3))
        #expect(connection.deadlineReached() == "readFirst")
        // The read finds body bytes that came in time.
        #expect(connection.receiveBody(5) == "readBody")
        #expect(connection.timePassed() == "none")
        #expect(connection.deadlineDue == connection.now + Duration.seconds(3).nanoseconds)
    }

    @Test("past its grace a body must average 1 KiB/s: one trickled a byte every 2 s is answered 408 body_too_slow")
    func trickledBodyIsTooSlow() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.post(length: 100_000)) == "readBody")
        // Each byte beats the idle timeout; until the grace has passed, the rate is not asked for.
        for _ in 0..<5 {
            #expect(connection.wait(.seconds(2)) == [])
            #expect(connection.receiveBody(1) == "readBody")
        }
        // The grace ends with the fifth byte: 5 bytes in 10 s are far under.
        #expect(connection.wait(.seconds(2)) == ["408 body_too_slow"])
        #expect(connection.phase == .failing)
    }

    @Test("a body that stops below the minimum rate is answered 408 body_too_slow once its grace has passed, not at the idle timeout")
    func aStalledBodyIsTooSlowWhenItsGraceEnds() {
        var limits = Self.limits
        limits.bodyIdleTimeout = .seconds(30)
        let connection = ConnectionHarness(limits: limits)
        #expect(connection.receiveHead(.post(length: 100_000)) == "readBody")
        #expect(connection.wait(.seconds(2)) == [])
        #expect(connection.receiveBody(5) == "readBody")
        // Nothing more comes. The rate is checked when the grace ends, bytes or none.
        #expect(connection.wait(.seconds(8)) == [], "within the grace")
        #expect(connection.wait(.milliseconds(2)) == ["408 body_too_slow"])
        #expect(connection.phase == .failing)
    }

    @Test("a body that has sent enough for a while may stop that long: it is answered 408 body_too_slow when its average falls under")
    func aBodyAheadOfTheRateMayPause() {
        var limits = Self.limits
        limits.bodyIdleTimeout = .seconds(60)
        let connection = ConnectionHarness(limits: limits)
        #expect(connection.receiveHead(.post(length: 100_000)) == "readBody")
        #expect(connection.receiveBody(20_480) == "readBody")
        // 20,480 bytes keep an average of 1 KiB/s for 20 s.
        #expect(connection.wait(.milliseconds(19_999)) == [])
        #expect(connection.wait(.milliseconds(3)) == ["408 body_too_slow"])
    }

    @Test("the minimum rate is an average since the head: a pause within the grace is made up by a fast body")
    func theRateIsAnAverage() {
        let connection = ConnectionHarness()
        #expect(connection.receiveHead(.post(length: 100_000)) == "readBody")
        #expect(connection.wait(.seconds(9)) == [])
        #expect(connection.receiveBody(20_000) == "readBody")
        #expect(connection.wait(.milliseconds(9_500)) == [])
        #expect(connection.receiveBody(1) == "readBody", "20,001 bytes in 18.5 s: over 1,024 a second")
        #expect(connection.receiveBody(1) == "readBody", "20,002 bytes in 18.5 s")
        // Then nothing: 20,002 bytes average 1,024 a second until 19.53 s, and no later.
        #expect(connection.wait(.milliseconds(1_030)) == [])
        #expect(connection.wait(.milliseconds(5)) == ["408 body_too_slow"], "20,002 bytes in 19.53 s: under")
    }

    @Test("after a response the connection waits the keep-alive idle timeout for the next request, then closes")
    func keepAliveIdleTimeout() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.get) == "readBody")
        #expect(connection.answer())
        #expect(connection.wait(.seconds(59)) == [], "not the header timeout of 10 s")
        #expect(connection.wait(.seconds(1)) == ["close"])
    }

    @Test("while a request is handled no timeout runs: a slow handler is not the client's doing")
    func handlingHasNoDeadline() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.get) == "readBody")
        connection.handle()
        #expect(connection.wait(.seconds(3_600)) == [])
        #expect(connection.respond())
    }

    @Test("a response the peer does not read within the write timeout closes the connection")
    func writeTimeout() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.get) == "readBody")
        connection.handle()
        #expect(connection.respond())
        #expect(connection.writeBlocks(), "the loop starts watching for writability")
        #expect(!connection.writeBlocks(), "and goes on")
        #expect(connection.wait(.milliseconds(29_999)) == [])
        #expect(connection.wait(.milliseconds(1)) == ["close"])
    }

    @Test("a drain closes a connection at once when nothing of a request has arrived, before or after a response")
    func drainWhileIdle() {
        let fresh = ConnectionHarness(limits: Self.limits)
        #expect(fresh.drain())
        let served = ConnectionHarness(limits: Self.limits)
        #expect(served.receiveHead(.get) == "readBody")
        #expect(served.answer())
        #expect(served.drain())
    }

    @Test("a drain during a request lets it finish, answered with Connection: close, then closes")
    func drainDuringARequest() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receivePartialHead() == "none")
        #expect(!connection.drain(), "part of a head has arrived")
        #expect(connection.receiveHead(.post(length: 10)) == "readBody")
        #expect(!connection.drain())
        #expect(connection.receiveBody(10) == "readBody")
        connection.handle()
        #expect(!connection.drain())
        #expect(!connection.respond(), "answered with Connection: close")
        #expect(connection.written() == "close", "a shutdown does not linger")
    }

    @Test("reading pauses while pipelined bytes fill the buffer behind the request handled, and resumes after its response")
    func pipelinedInputPauses() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(.get) == "readBody")
        connection.handle()
        let full = ConnectionStateMachine.pipelineBufferLimit
        #expect(connection.inputProcessed(betweenRequests: false, bufferedBytes: full) == "none")
        #expect(!connection.readable())
        #expect(connection.respond())
        #expect(connection.written() == "carryOn")
        #expect(connection.inputProcessed(betweenRequests: false, bufferedBytes: full) == "resumeReading")
        #expect(connection.isReading)
    }

    @Test("after the end of the peer's input the request in progress is answered with Connection: close; with none, it closes")
    func endOfInput() {
        let answering = ConnectionHarness(limits: Self.limits)
        #expect(answering.receiveHead(.get) == "readBody")
        answering.handle()
        answering.peerEnds()
        #expect(!answering.respond())
        let idle = ConnectionHarness(limits: Self.limits)
        idle.peerEnds()
        #expect(idle.inputProcessed(betweenRequests: true) == "close")
    }

    @Test("a body over its route's limit is answered 413, declared or as it arrives; Expect: 100-continue is answered first")
    func bodyLimitAndContinue() {
        let declared = ConnectionHarness(limits: Self.limits)
        #expect(declared.receiveHead(.post(length: 2_000), bodyLimit: 1_000) == "413 body_too_large")
        let chunked = ConnectionHarness(limits: Self.limits)
        let head = RequestHead(method: "POST", target: "/echo", headers: ["host": "x"], framing: .chunked)
        #expect(chunked.receiveHead(head, bodyLimit: 1_000) == "readBody")
        #expect(chunked.receiveBody(600) == "readBody")
        #expect(chunked.receiveBody(600) == "413 body_too_large")
        let continued = ConnectionHarness(limits: Self.limits)
        #expect(continued.receiveHead(.post(length: 10, expectsContinue: true)) == "sendContinue")
    }

    @Test("a connection ended after a response lingers, reading what the peer still sends, until the peer's end or the linger timeout")
    func lingeringClose() {
        let refused = ConnectionHarness(limits: Self.limits)
        #expect(refused.receiveHead(.post(length: 2_000), bodyLimit: 1_000) == "413 body_too_large")
        #expect(!refused.isReading, "nothing is read while the error is queued")
        #expect(refused.written() == "linger")
        #expect(refused.phase == .lingering)
        #expect(refused.isReading, "the rest of the refused body is read, and dropped")
        #expect(!refused.machine.lingerIsOver)
        #expect(refused.wait(.milliseconds(4_999)) == [])
        #expect(refused.wait(.milliseconds(1)) == ["close"], "closed at the linger timeout (5 s)")

        let leaving = ConnectionHarness(limits: Self.limits)
        #expect(leaving.receiveHead(.get) == "readBody")
        leaving.handle()
        #expect(!leaving.respond(keepAliveRequested: false))
        #expect(leaving.written() == "linger", "Connection: close lingers too: requests may be pipelined behind")
        let full = ConnectionStateMachine.pipelineBufferLimit
        #expect(leaving.inputProcessed(betweenRequests: false, bufferedBytes: full) == "none")
        #expect(leaving.isReading, "pipelined bytes left in the parser do not pause a lingering read")
        leaving.peerEnds()
        #expect(leaving.machine.lingerIsOver, "the peer's end ends the lingering")

        let ended = ConnectionHarness(limits: Self.limits)
        #expect(ended.receiveHead(.get) == "readBody")
        ended.handle()
        ended.peerEnds()
        #expect(!ended.respond())
        #expect(ended.written() == "close", "nothing more can come from a peer that ended its input")

        let shutDown = ConnectionHarness(limits: Self.limits)
        #expect(shutDown.receiveHead(.post(length: 2_000), bodyLimit: 1_000) == "413 body_too_large")
        #expect(shutDown.written() == "linger")
        #expect(shutDown.drain(), "a shutdown closes a lingering connection at once")

        var noLinger = Self.limits
        noLinger.lingerTimeout = .zero
        let immediate = ConnectionHarness(limits: noLinger)
        #expect(immediate.receiveHead(.post(length: 2_000), bodyLimit: 1_000) == "413 body_too_large")
        #expect(immediate.written() == "close", "a linger timeout of zero closes at once")
    }

    @Test("a streamed response has no deadline while its reader keeps up, is closed when the reader stops for the write timeout, and by a drain at once")
    func streaming() {
        let connection = ConnectionHarness(limits: Self.limits)
        #expect(connection.receiveHead(RequestHead.get) == "readBody")
        connection.handle()
        #expect(!connection.respond(keepAliveRequested: false))
        connection.streamStarts()
        #expect(connection.written() == "carryOn", "the head and first bytes are written; the stream goes on")
        #expect(connection.phase == .streaming)
        #expect(connection.isReading, "input is read, to learn that the reader left")
        #expect(connection.wait(.seconds(3600)) == [], "an hour without events: no timeout")
        #expect(connection.writeBlocks())
        #expect(connection.wait(.milliseconds(29_999)) == [])
        #expect(connection.wait(.milliseconds(1)) == ["close"], "a reader that takes nothing for the write timeout is closed")

        let drained = ConnectionHarness(limits: Self.limits)
        #expect(drained.receiveHead(RequestHead.get) == "readBody")
        drained.handle()
        _ = drained.respond(keepAliveRequested: false)
        drained.streamStarts()
        #expect(drained.drain(), "a shutdown closes a stream at once")
    }
}
