/// What a server's health reading says: whether it answered, how fast, what it says
/// about itself, and what, if anything, is wrong.
package struct ServerHealth: Sendable, Equatable {
    /// Whether an HTTP answer came at all.
    package let reachable: Bool
    /// How long the answer took, in whole milliseconds, when one came.
    package let latencyMilliseconds: Int64?
    /// The HTTP status of the answer, when one came.
    package let status: Int?
    /// What the server says about itself (its `Server` header), when it says anything.
    package let says: String?
    /// Why the server is not usable as it stands (no answer, a refused key, not a model
    /// list), or `nil` when it is.
    package let problem: String?

    /// The reading with these fields; `latencyMilliseconds` and `status` only when an
    /// answer came.
    package init(reachable: Bool, latencyMilliseconds: Int64?, status: Int?, says: String?, problem: String?) {
        self.reachable = reachable
        self.latencyMilliseconds = latencyMilliseconds
        self.status = status
        self.says = says
        self.problem = problem
    }
}

// MARK: - Kept as a reading

/// The `health` reading of the engines module.
///
/// Shape 1: `{"reachable": bool, "latencyMs": int?, "status": int?, "says": text?, "problem": text?}`.
enum HealthReading: KeptShape {
    static let kind = "health"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        let reachable: Bool
        let latencyMs: Int64?
        let status: Int?
        let says: String?
        let problem: String?
    }

    static func encode(_ value: ServerHealth) throws(KeptError) -> [UInt8] {
        try json(
            V1(
                reachable: value.reachable, latencyMs: value.latencyMilliseconds, status: value.status,
                says: value.says, problem: value.problem))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> ServerHealth {
        guard version == 1 else { throw unknownVersion(version) }
        let shape = try json(V1.self, from: bytes, version: version)
        return ServerHealth(
            reachable: shape.reachable, latencyMilliseconds: shape.latencyMs, status: shape.status, says: shape.says,
            problem: shape.problem)
    }
}
