import Glibc

/// How a route answers. Most routes answer at once on the connection's event loop; routes that
/// wait (for the store, say) are async and run as a task. A `callback` route starts on the
/// connection's event loop and answers later through its `Responder` from any thread, without a
/// task: the hot send path uses it to spare two thread hops per request.
public enum Handler: Sendable {
    case immediate(@Sendable (Request) throws -> Response)
    case async(@Sendable (Request) async throws -> Response)
    case callback(@Sendable (Request, Responder) throws -> Void)
}

/// Answers a `callback` route's request once. The response is built on the connection's loop,
/// whichever thread calls `respond`, so heavy work stays off threads like the store's writer.
public struct Responder: Sendable {
    let deliver: @Sendable (@escaping @Sendable () throws -> Response) -> Void

    /// A responder that hands the response's builder to `deliver` (the connection's, or a test's).
    public init(deliver: @escaping @Sendable (@escaping @Sendable () throws -> Response) -> Void) {
        self.deliver = deliver
    }

    public func respond(_ build: @escaping @Sendable () throws -> Response) {
        deliver(build)
    }

    public func fail(_ error: any Error) {
        deliver { throw error }
    }
}

/// Method and path templates (`/v1/messages/{id}/flag`) compiled once into a trie of segments.
/// Literal segments win over parameters at the same depth.
public struct Router: Sendable {
    public enum Match: Sendable {
        case found(Handler, parameters: RouteParameters)
        /// The path exists but not for this method; `allowed` is what the `Allow` header lists.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    /// A node's few children or methods, found by comparing names in turn: a node has a
    /// handful, and hashing every segment of every request cost more than comparing it. Names
    /// compare byte for byte, as path segments and methods are meant to (a `String` comparison
    /// would also weigh canonically equivalent spellings).
    private struct FewEntries<Value> {
        private(set) var entries: [(name: String, value: Value)] = []

        var isEmpty: Bool { entries.isEmpty }
        var names: [String] { entries.map(\.name) }

        subscript(name: Substring) -> Value? {
            // By index: iterating the entries would copy (and retain) each one it looks at.
            for index in entries.indices where Self.sameBytes(entries[index].name, name) { return entries[index].value }
            return nil
        }

        private static func sameBytes(_ name: String, _ other: Substring) -> Bool {
            let count = name.utf8.count
            guard count == other.utf8.count else { return false }
            guard count > 0 else { return true }
            // Both are native strings, whose bytes are contiguous: one memcmp.
            let compared: Bool?? = name.utf8.withContiguousStorageIfAvailable { bytes in
                other.utf8.withContiguousStorageIfAvailable { otherBytes in
                    memcmp(bytes.baseAddress!, otherBytes.baseAddress!, count) == 0
                }
            }
            if let same = compared ?? nil { return same }
            return name.utf8.elementsEqual(other.utf8)
        }

        /// Only while the router is built.
        mutating func add(_ name: String, _ value: Value) {
            precondition(self[name[...]] == nil, "router entries are added once")
            entries.append((name, value))
        }
    }

    private final class Node: @unchecked Sendable {
        // Mutated only while the router is being built, before it is shared.
        var literals = FewEntries<Node>()
        var parameter: (name: String, node: Node)?
        var handlers = FewEntries<Handler>()
        /// Body limits of the routes that take more than the server's default.
        var bodyLimits = FewEntries<Int>()
        /// The template the node's routes were added with, for logs and metrics.
        var template = ""
    }

    private let root = Node()
    public private(set) var routes: [(method: String, template: String)] = []
    /// The largest body any route accepts beyond the server's default, if one does.
    public private(set) var largestBodyLimit: Int?

    public init() {}

    /// Adds a route. Templates are absolute paths; `{name}` makes a segment a parameter.
    /// `maxBodyBytes` raises (or lowers) the body limit for this route alone: a bulk import may
    /// take more than the server's default.
    public mutating func add(_ method: String, _ template: String, _ handler: Handler, maxBodyBytes: Int? = nil) {
        precondition(template.hasPrefix("/"), "route templates start with /")
        var node = root
        for segment in template.split(separator: "/", omittingEmptySubsequences: true) {
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                if let existing = node.parameter {
                    precondition(existing.name == name, "conflicting parameter names at \(template)")
                    node = existing.node
                } else {
                    let child = Node()
                    node.parameter = (name, child)
                    node = child
                }
            } else {
                if let child = node.literals[segment] {
                    node = child
                } else {
                    let child = Node()
                    node.literals.add(String(segment), child)
                    node = child
                }
            }
        }
        precondition(node.handlers[method[...]] == nil, "route \(method) \(template) is defined twice")
        node.handlers.add(method, handler)
        node.template = template
        if let maxBodyBytes {
            node.bodyLimits.add(method, maxBodyBytes)
            largestBodyLimit = max(largestBodyLimit ?? 0, maxBodyBytes)
        }
        routes.append((method, template))
    }

    public mutating func get(_ template: String, _ handler: Handler) { add("GET", template, handler) }
    public mutating func post(_ template: String, _ handler: Handler) { add("POST", template, handler) }
    public mutating func put(_ template: String, _ handler: Handler) { add("PUT", template, handler) }
    public mutating func patch(_ template: String, _ handler: Handler) { add("PATCH", template, handler) }
    public mutating func delete(_ template: String, _ handler: Handler) { add("DELETE", template, handler) }

    /// Finds the handler for a method and a raw (still percent-encoded) path. HEAD is answered by
    /// the GET handler; the connection leaves out the body.
    public func match(method: String, path: Substring) -> Match {
        route(method: method, path: path).match
    }

    /// The match for a method and path, and the route's own body limit if it has one: one walk
    /// of the trie for both, done once per request when its head arrives.
    public func route(method: String, path: Substring) -> (match: Match, bodyLimit: Int?, template: String?) {
        var parameters = RouteParameters()
        guard let node = Self.find(in: path, from: path.startIndex, at: root, parameters: &parameters), !node.handlers.isEmpty else {
            return (.notFound, nil, nil)
        }
        if let handler = node.handlers[method[...]] ?? (method == "HEAD" ? node.handlers["GET"] : nil) {
            return (.found(handler, parameters: parameters), node.bodyLimits[method[...]], node.template)
        }
        var allowed = Set(node.handlers.names)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return (.methodNotAllowed(allowed: allowed.sorted()), nil, node.template)
    }

    /// The non-empty parts of `path` between slashes, as routing walks them.
    static func segments(of path: Substring) -> [Substring] {
        var segments: [Substring] = []
        var index = path.startIndex
        while let (segment, next) = nextSegment(of: path, from: index) {
            segments.append(segment)
            index = next
        }
        return segments
    }

    /// The first non-empty part of `path` between slashes from `index` on, and where the search
    /// for the one after it starts; nil when only slashes are left. Found byte by byte (see
    /// `RequestHead.path`), and walked in place: routing builds no list of segments.
    private static func nextSegment(of path: Substring, from index: Substring.Index) -> (Substring, next: Substring.Index)? {
        let utf8 = path.utf8
        var start = index
        while start != utf8.endIndex && utf8[start] == UInt8(ascii: "/") { start = utf8.index(after: start) }
        guard start != utf8.endIndex else { return nil }
        var end = start
        while end != utf8.endIndex && utf8[end] != UInt8(ascii: "/") { end = utf8.index(after: end) }
        return (path[start..<end], end)
    }

    /// The node with handlers that the segments of `path` from `index` on lead to. A literal
    /// segment is tried first; when the path dead-ends below it, the parameter at the same depth
    /// is tried instead.
    private static func find(in path: Substring, from index: Substring.Index, at node: Node, parameters: inout RouteParameters) -> Node? {
        guard let (segment, next) = nextSegment(of: path, from: index) else { return node.handlers.isEmpty ? nil : node }
        if let child = node.literals[segment], let found = find(in: path, from: next, at: child, parameters: &parameters) {
            return found
        }
        guard let (name, child) = node.parameter, let value = PercentDecoding.decode(segment) else { return nil }
        parameters.append(name, value)
        if let found = find(in: path, from: next, at: child, parameters: &parameters) { return found }
        parameters.removeLast()
        return nil
    }
}
