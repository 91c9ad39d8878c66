/// The name of an app key: a short lowercase word, checked when made.
public struct KeyName: Hashable, Sendable, CustomStringConvertible {
    /// The checked name: 1–64 characters of `a-z 0-9 -`.
    public let rawValue: String

    /// `name` when it is 1–64 characters of `a-z 0-9 -`, else a typed error.
    public init(_ name: String) throws(SecretsError) {
        let allowed = name.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw SecretsError(
                code: .invalidRef, operation: "key name",
                detail: "\(StorageError.quoted(name)) is not a key name (1-64 characters of a-z, 0-9, -)")
        }
        rawValue = name
    }

    public var description: String { rawValue }
}
