import BouncerApplication
import HTTPServer
import JSON

/// The access log: a request's line, at info. The same JSON as `info("request", [...])` with
/// these fields, written without building a field list: it runs for every request.
extension Logger {
    public func request(_ entry: AccessLogEntry) {
        write(.info, "request") { line in
            JSONText.appendMember(#","request_id":"#, entry.requestID, to: &line)
            JSONText.appendMember(#","method":"#, entry.method, to: &line)
            JSONText.appendMember(#","path":"#, entry.path, to: &line)
            line.append(#","status":"#)
            line.appendDecimal(entry.status)
            line.append(#","bytes":"#)
            line.appendDecimal(entry.bytes)
            line.append(#","duration_ms":"#)
            Self.appendMilliseconds(entry.duration, to: &line)
            line.append("}\n")
        }
    }
}
