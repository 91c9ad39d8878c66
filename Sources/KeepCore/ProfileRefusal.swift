/// An entry of the servers file that is not used, and why: a server without a usable URL,
/// an alias that names no model, a role without a system prompt. The entry stays in the
/// file as it was written.
public struct ProfileRefusal: Sendable, Equatable, CustomStringConvertible {
    /// Why an entry or a value is refused, in words that never quote a secret.
    public struct Reason: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reason, in words.
        public let text: String

        /// The reason `text`.
        public init(_ text: String) { self.text = text }

        public var description: String { text }
    }

    /// Where it is: `servers.local`, `aliases.fast`, `roles.coder`, `default`.
    public let entry: String
    /// Why it is not used.
    public let reason: String

    /// The refusal of `entry` for `reason`.
    public init(entry: String, reason: String) {
        self.entry = entry
        self.reason = reason
    }

    public var description: String { "\(entry): \(reason)" }
}
