/// Every bound the server puts on what a client controls, in one place. Each limit is enforced
/// before the excess is read: the parser refuses a request line, header section or body as soon as
/// it is known to be too large, and the connection closes peers that stall.
public struct ServerLimits: Sendable, Equatable {
    /// Longest request line, without its CRLF (414 past it).
    public var maxRequestLineBytes = 8 * 1024
    /// Largest header section, field lines and their CRLFs (431 past it).
    public var maxHeaderBytes = 16 * 1024
    /// Most header fields in one request (431 past it).
    public var maxHeaderCount = 100
    /// Largest request body, decided from Content-Length before reading it (413 past it).
    public var maxBodyBytes = 1024 * 1024
    /// Deepest nesting of arrays and objects accepted in a JSON body (400 past it).
    public var maxJSONDepth = 64
    /// Time allowed from the first byte of a request to the end of its header section.
    public var headerTimeout: Duration = .seconds(10)
    /// Time allowed between two reads of a request body.
    public var bodyIdleTimeout: Duration = .seconds(10)
    /// Bytes a second a request body must average once `bodyRateGrace` has passed since its head
    /// (408 and a close below it, like Apache's `mod_reqtimeout` `MinRate`): a body trickled a byte
    /// at a time would otherwise hold its connection for as long as each byte beats the idle timeout.
    public var bodyMinimumRate = 1024
    public var bodyRateGrace: Duration = .seconds(10)
    /// Time an idle keep-alive connection is kept open between requests.
    public var keepAliveIdleTimeout: Duration = .seconds(60)
    /// Time allowed to write one response to a peer that reads slowly.
    public var writeTimeout: Duration = .seconds(30)
    /// Time a connection the server ends after a response keeps reading (and dropping) what the
    /// peer still sends, its sending side already shut, before it closes: a close with unread
    /// input resets the connection, which can lose the response on its way (RFC 9112, section
    /// 9.6). Zero closes at once.
    public var lingerTimeout: Duration = .seconds(5)
    /// Open connections at most; past it the server stops accepting until one closes.
    public var maxConnections = 10_000
    /// Bytes a streamed response (Server-Sent Events) may have waiting for its reader before the
    /// connection is closed: a reader that falls this far behind resumes from its last event
    /// instead of growing the server's memory.
    public var maxStreamBacklogBytes = 256 * 1024

    public init() {}
}
