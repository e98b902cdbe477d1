/// The values of a matched route's `{name}` segments, percent-decoded, found by name. Routes have
/// two at most (`/v1/messages/{id}/flags/{flag_id}`): those are kept in place, and any more in
/// an array. A dictionary for each request cost an allocation and a hash of every name.
public struct RouteParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public typealias Parameter = (name: String, value: String)

    private var first: Parameter?
    private var second: Parameter?
    private var more: [Parameter] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { append(name, value) }
    }

    public var count: Int { (first == nil ? 0 : 1) + (second == nil ? 0 : 1) + more.count }

    public subscript(name: String) -> String? {
        if let first, first.name == name { return first.value }
        if let second, second.name == name { return second.value }
        return more.first { $0.name == name }?.value
    }

    /// Adds a parameter after the others. A route's template names each parameter once.
    mutating func append(_ name: String, _ value: String) {
        if first == nil {
            first = (name, value)
        } else if second == nil {
            second = (name, value)
        } else {
            more.append((name, value))
        }
    }

    /// Takes back the last parameter added: the router's way back from a branch that led nowhere.
    mutating func removeLast() {
        if !more.isEmpty {
            more.removeLast()
        } else if second != nil {
            second = nil
        } else {
            first = nil
        }
    }

    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Names are unique, so equal counts and every parameter of one found in the other are
        // the same parameters, in whatever order.
        var equal = true
        lhs.forEach { name, value in if rhs[name] != value { equal = false } }
        return equal
    }

    private func forEach(_ body: (String, String) -> Void) {
        if let first { body(first.name, first.value) }
        if let second { body(second.name, second.value) }
        for parameter in more { body(parameter.name, parameter.value) }
    }
}
