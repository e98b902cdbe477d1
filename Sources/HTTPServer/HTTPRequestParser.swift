import Glibc

/// What the parser found next in the byte stream.
public enum HTTPParserEvent: Sendable, Equatable {
    /// A complete, validated request head. Body events, if any, follow, then `end`.
    case head(RequestHead)
    case body([UInt8])
    /// The end of the current request; the next event belongs to the next request.
    case end
}

/// An incremental HTTP/1.1 request parser (RFC 9112). A pure value: feed it bytes as they arrive,
/// then pull events until it answers nil (it needs more bytes). It never reads past a limit: a
/// request line, header section or body that is too large is refused as soon as that is known.
/// Any ambiguity that could let two parsers frame the same bytes differently (request smuggling)
/// is an error, after which the parser stays failed.
public struct HTTPRequestParser: Sendable {
    private enum State: Sendable {
        case requestLine
        case headerLines
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
        case failed(HTTPParseError)
    }

    public let limits: ServerLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Where the search for the next LF resumes, so a line trickling in is scanned only once.
    private var scanIndex = 0
    private var state: State = .requestLine
    private var emptyLinesBeforeRequest = 0

    /// Header fields a request usually has, reserved up front (more simply grow the array).
    static let usualFieldCount = 8

    // The request being parsed.
    private var method = ""
    private var target = ""
    private var version = HTTPVersion.http1_1
    private var headers = HTTPHeaders(capacity: HTTPRequestParser.usualFieldCount)
    private var headerBytes = 0
    private var bodyBytes = 0

    /// Most bytes of chunk-size line, including extensions, accepted.
    static let maxChunkSizeLineBytes = 1024
    /// Most empty lines tolerated before a request line (RFC 9112 section 2.2 allows some).
    static let maxLeadingEmptyLines = 8

    public init(limits: ServerLimits = ServerLimits()) {
        self.limits = limits
    }

    /// Bytes received and not yet turned into events.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True between requests: nothing of a next request has been received yet.
    public var isBetweenRequests: Bool {
        if case .requestLine = state { return bufferedByteCount == 0 }
        return false
    }

    /// True once the head of the current request is complete (its body may still be arriving).
    public var isReadingBody: Bool {
        switch state {
        case .body, .chunkSize, .chunkData, .chunkDataEnd, .trailerLines: true
        default: false
        }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next event, or nil when more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> HTTPParserEvent? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    // MARK: - The state machine

    private mutating func step() throws(HTTPParseError) -> HTTPParserEvent? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .requestLine:
                guard let line = try nextLine(limit: limits.maxRequestLineBytes, tooLong: Self.requestLineTooLong) else {
                    return nil
                }
                if line.isEmpty {
                    emptyLinesBeforeRequest += 1
                    if emptyLinesBeforeRequest > Self.maxLeadingEmptyLines {
                        throw .bad("invalid_request_line", "Too many empty lines before the request line.", key: "request_line.empty_lines")
                    }
                    continue
                }
                try parseRequestLine(line)
                state = .headerLines
            case .headerLines:
                let remaining = limits.maxHeaderBytes - headerBytes
                guard let line = try nextLine(limit: remaining - 2, tooLong: Self.headerSectionTooLarge) else {
                    return nil
                }
                headerBytes += line.count + 2
                if line.isEmpty {
                    let head = try finishHead()
                    return .head(head)
                }
                if headers.count == limits.maxHeaderCount {
                    throw Self.headerSectionTooLarge
                }
                let (name, value) = try parseFieldLine(line)
                headers.add(name, value)
            case .body(let remaining):
                if remaining == 0 {
                    return finishMessage()
                }
                guard bufferedByteCount > 0 else { return nil }
                let chunk = takeBytes(upTo: remaining)
                state = .body(remaining: remaining - chunk.count)
                return .body(chunk)
            case .chunkSize:
                guard let line = try nextLine(limit: Self.maxChunkSizeLineBytes, tooLong: .bad("invalid_chunk", "Chunk size line is too long.", key: "chunk.size_line_too_long")) else {
                    return nil
                }
                let size = try parseChunkSize(line)
                if size == 0 {
                    state = .trailerLines
                    continue
                }
                guard size <= limits.maxBodyBytes - bodyBytes else {
                    throw Self.bodyTooLarge(limits)
                }
                bodyBytes += size
                state = .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard bufferedByteCount > 0 else { return nil }
                let chunk = takeBytes(upTo: remaining)
                state = chunk.count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - chunk.count)
                return .body(chunk)
            case .chunkDataEnd:
                guard bufferedByteCount >= 2 else { return nil }
                guard buffer[readIndex] == ASCII.cr, buffer[readIndex + 1] == ASCII.lf else {
                    throw .bad("invalid_chunk", "Chunk data is not followed by CRLF.", key: "chunk.no_crlf")
                }
                readIndex += 2
                scanIndex = readIndex
                state = .chunkSize
            case .trailerLines:
                let remaining = limits.maxHeaderBytes - headerBytes
                guard let line = try nextLine(limit: remaining - 2, tooLong: Self.headerSectionTooLarge) else {
                    return nil
                }
                headerBytes += line.count + 2
                if line.isEmpty {
                    return finishMessage()
                }
                // Trailer fields are validated like header fields and then dropped: nothing here
                // acts on them, and merging them into the head would let them override framing.
                _ = try parseFieldLine(line)
            }
        }
    }

    /// Up to `limit` buffered body bytes, consumed.
    private mutating func takeBytes(upTo limit: Int) -> [UInt8] {
        let count = min(limit, bufferedByteCount)
        defer { readIndex += count }
        return Array(buffer[readIndex..<readIndex + count])
    }

    // MARK: - Lines

    /// The next line without its CRLF, or nil if it has not fully arrived. A line longer than
    /// `limit` fails with `tooLong` as soon as that many bytes are buffered without a line end.
    private mutating func nextLine(limit: Int, tooLong: HTTPParseError) throws(HTTPParseError) -> ArraySlice<UInt8>? {
        let start = readIndex
        let searchFrom = max(scanIndex, start)
        guard let lf = Self.firstIndex(of: ASCII.lf, in: buffer, from: searchFrom, to: buffer.count) else {
            // Allow for the CR of a CRLF that has not arrived yet.
            if buffer.count - start > limit + 1 { throw tooLong }
            scanIndex = buffer.count
            return nil
        }
        // Too long is decided first, as above, so that the answer is the same however the bytes
        // arrive: all at once, or a line longer than the limit before its LF shows up.
        if lf - start > limit + 1 { throw tooLong }
        guard lf > start, buffer[lf - 1] == ASCII.cr else {
            throw .bad("bare_lf", "A line ends in LF without CR.")
        }
        let line = buffer[start..<(lf - 1)]
        if line.count > limit { throw tooLong }
        // Whichever of a CR or a NUL comes first inside the line decides the error.
        let cr = Self.firstIndex(of: ASCII.cr, in: buffer, from: start, to: lf - 1)
        let nul = Self.firstIndex(of: 0, in: buffer, from: start, to: cr ?? lf - 1)
        if nul != nil { throw .bad("nul_in_header", "NUL in the request head.") }
        if cr != nil { throw .bad("bare_cr", "A bare CR in the request head.") }
        readIndex = lf + 1
        scanIndex = readIndex
        return line
    }

    /// The first index of `byte` in `bytes[from..<to]`, found with `memchr` (a head is scanned
    /// byte by byte for every request otherwise).
    private static func firstIndex(of byte: UInt8, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let found = memchr(buffer.baseAddress! + from, Int32(byte), to - from) else { return nil }
            return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - buffer.baseAddress!
        }
    }

    private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        // Exactly two spaces, found in place: this runs for every request.
        guard let firstSpace = line.firstIndex(of: ASCII.space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: ASCII.space),
              !line[(secondSpace + 1)...].contains(ASCII.space) else {
            throw .bad("invalid_request_line", "The request line is not `method SP target SP version`.", key: "request_line.form")
        }
        let methodBytes = line[..<firstSpace], targetBytes = line[(firstSpace + 1)..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]
        let isTokenChar = ASCII.isTokenChar
        guard !methodBytes.isEmpty, methodBytes.allSatisfy({ isTokenChar[Int($0)] }) else {
            throw .bad("invalid_method", "The method is not a token.")
        }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .bad("invalid_target", "The request target has characters that are not allowed.", key: "target.characters")
        }
        version = try Self.parseVersion(versionBytes)
        method = String(decoding: methodBytes, as: UTF8.self)
        target = String(decoding: targetBytes, as: UTF8.self)
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://")
            || (target == "*" && method == "OPTIONS") else {
            throw .bad("invalid_target", "The request target is not in origin, absolute or asterisk form.", key: "target.form")
        }
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let start = bytes.startIndex
        guard bytes.count >= 6, bytes[start] == UInt8(ascii: "H"), bytes[start + 1] == UInt8(ascii: "T"),
              bytes[start + 2] == UInt8(ascii: "T"), bytes[start + 3] == UInt8(ascii: "P"), bytes[start + 4] == UInt8(ascii: "/"),
              let major = digit(bytes[start + 5]) else {
            throw .bad("invalid_version", "The HTTP version is malformed.")
        }
        var minor = 0
        if bytes.count == 8, bytes[start + 6] == UInt8(ascii: "."), let value = digit(bytes[start + 7]) {
            minor = value
        } else if !(bytes.count == 6 && major >= 2) {
            // `HTTP/2` and `HTTP/3` without a minor are how later versions name themselves.
            throw .bad("invalid_version", "The HTTP version is malformed.")
        }
        guard major == 1 else {
            throw HTTPParseError(.httpVersionNotSupported, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are served here.")
        }
        return HTTPVersion(major: 1, minor: minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 48 && byte <= 57 ? Int(byte - 48) : nil
    }

    private func parseFieldLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String) {
        guard let first = line.first, first != ASCII.space, first != ASCII.tab else {
            throw .bad("obs_fold", "Header line folding (obs-fold) is not accepted.")
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .bad("invalid_header", "A header line has no colon.")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty else {
            throw .bad("invalid_header_name", "A header field name is empty.", key: "header_name.empty")
        }
        // Read once: each use of a global goes through its one-time initializer's check.
        let isTokenChar = ASCII.isTokenChar
        for byte in name where !isTokenChar[Int(byte)] {
            if byte == ASCII.space || byte == ASCII.tab {
                throw .bad("whitespace_before_colon", "Whitespace between a field name and its colon is not accepted.")
            }
            throw .bad("invalid_header_name", "A header field name has characters that are not allowed.", key: "header_name.characters")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == ASCII.space || byte == ASCII.tab { value.removeFirst() }
        while let byte = value.last, byte == ASCII.space || byte == ASCII.tab { value.removeLast() }
        for byte in value where (byte < 0x20 && byte != ASCII.tab) || byte == 0x7F {
            throw .bad("invalid_header_value", "A header field value has a control character.")
        }
        let lowerName = String(unsafeUninitializedCapacity: name.count) { buffer in
            for (offset, byte) in name.enumerated() { buffer[offset] = ASCII.lower(byte) }
            return name.count
        }
        return (lowerName, String(decoding: value, as: UTF8.self))
    }

    // MARK: - Framing (RFC 9112 section 6)

    private mutating func finishHead() throws(HTTPParseError) -> RequestHead {
        // Counted and read in place: every request has these checks, and arrays would cost them.
        let hostCount = headers.count(of: "host")
        if hostCount > 1 {
            throw .bad("duplicate_host", "More than one Host header field.")
        }
        if version.minor >= 1 && hostCount == 0 {
            throw .bad("missing_host", "An HTTP/1.1 request needs a Host header field.")
        }
        if var host = headers["host"], host.withUTF8({ $0.contains(where: Self.isRefusedInHost) }) {
            throw .bad("invalid_host", "The Host header field is not a valid host.")
        }

        let connectionTokens = headers.values("connection").flatMap(Self.listTokens)
        let keepAlive = version.minor >= 1
            ? !connectionTokens.contains("close")
            : connectionTokens.contains("keep-alive")

        let lengthCount = headers.count(of: "content-length")
        let codings = headers.values("transfer-encoding")
        var framing = RequestHead.BodyFraming.none
        if !codings.isEmpty {
            // RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing,
            // Content-Length or not (a 1.0 hop may not have understood the coding).
            guard version.minor >= 1 else {
                throw .bad("transfer_encoding_in_http10", "Transfer-Encoding is not accepted in an HTTP/1.0 request.")
            }
            guard lengthCount == 0 else {
                throw .bad("conflicting_framing", "Content-Length and Transfer-Encoding together are not accepted.")
            }
            let list = codings.flatMap(Self.listTokens)
            guard let last = list.last, last == "chunked" else {
                throw .bad("invalid_transfer_encoding", "A request's final transfer coding must be chunked.", key: "transfer_encoding.final")
            }
            if list.dropLast().contains("chunked") {
                throw .bad("invalid_transfer_encoding", "The chunked coding is applied more than once.", key: "transfer_encoding.twice")
            }
            if list.count > 1 {
                throw HTTPParseError(.notImplemented, "unsupported_transfer_encoding", "Only the chunked transfer coding is supported.")
            }
            framing = .chunked
        } else if let lengthValue = headers["content-length"] {
            guard lengthCount == 1 else {
                throw .bad("duplicate_content_length", "More than one Content-Length header field.")
            }
            guard let length = Self.parseContentLength(lengthValue) else {
                throw .bad("invalid_content_length", "Content-Length is not a decimal number of bytes.")
            }
            guard length <= limits.maxBodyBytes else {
                throw Self.bodyTooLarge(limits)
            }
            framing = length == 0 ? .none : .length(length)
        }

        var expectsContinue = false
        if let expectation = headers["expect"] {
            guard expectation.lowercased() == "100-continue" else {
                throw HTTPParseError(.expectationFailed, "expectation_failed", "Only `Expect: 100-continue` is supported.")
            }
            expectsContinue = version.minor >= 1 && framing != .none
        }

        let head = RequestHead(method: method, target: target, version: version, headers: headers,
                               framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue)
        switch framing {
        case .none: state = .body(remaining: 0)
        case .length(let length): state = .body(remaining: length)
        case .chunked: state = .chunkSize
        }
        headerBytes = 0
        return head
    }

    private mutating func finishMessage() -> HTTPParserEvent {
        state = .requestLine
        headers = HTTPHeaders(capacity: Self.usualFieldCount)
        headerBytes = 0
        bodyBytes = 0
        emptyLinesBeforeRequest = 0
        return .end
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size: UInt64 = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = ASCII.hexValue(line[index]) {
            digits += 1
            // Sixteen hex digits fill 64 bits; more can only overflow.
            guard digits <= 16 else { throw .bad("invalid_chunk", "The chunk size overflows.", key: "chunk.overflow") }
            size = size << 4 | value
            index += 1
        }
        guard digits > 0 else { throw .bad("invalid_chunk", "The chunk size is not hexadecimal.", key: "chunk.not_hex") }
        var rest = line[index...]
        while let byte = rest.first, byte == ASCII.space || byte == ASCII.tab { rest.removeFirst() }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else {
            throw .bad("invalid_chunk", "The chunk size is followed by something other than an extension.", key: "chunk.extension")
        }
        guard size <= UInt64(Int.max) else { throw .bad("invalid_chunk", "The chunk size overflows.", key: "chunk.overflow") }
        return Int(size)
    }

    private static func parseContentLength(_ text: String) -> Int? {
        let bytes = text.utf8
        // At most 18 digits, so the value always fits and a `+`, `-`, space or list is refused.
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    @inline(__always)
    private static func isRefusedInHost(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.tab || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "@")
    }

    /// The comma-separated tokens of a list-valued field, trimmed and in lower case.
    private static func listTokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
    }

    // MARK: - Errors and storage

    static let requestLineTooLong = HTTPParseError(.uriTooLong, "request_line_too_long", "The request line is longer than the server accepts.")
    static let headerSectionTooLarge = HTTPParseError(.requestHeaderFieldsTooLarge, "header_section_too_large", "The header section is larger than the server accepts.")

    static func bodyTooLarge(_ limits: ServerLimits) -> HTTPParseError { bodyTooLarge(limits.maxBodyBytes) }

    static func bodyTooLarge(_ limit: Int) -> HTTPParseError {
        HTTPParseError(.contentTooLarge, "body_too_large", "The request body is larger than \(limit) bytes.",
                       detailArguments: [String(limit)])
    }

    /// Drops consumed bytes so the buffer holds only what is still to be parsed.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
        } else if readIndex >= 4096 || readIndex * 2 >= buffer.count {
            buffer.removeFirst(readIndex)
        } else {
            return
        }
        scanIndex = max(0, scanIndex - readIndex)
        readIndex = 0
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, in RFC 9110's words).
    public func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
