import KeepPorts

/// One value bound to a statement's parameter or read from a row: SQLite's five types.
///
/// Values only ever reach SQL as bound parameters, never spliced into its text. Literals
/// make parameter lists short: `[1, "models", nil, .blob(bytes)]`.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`; `nil` in a literal list.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit floating-point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, kept as they are: sealed payloads and subject hashes.
    case blob([UInt8])

    /// A sealed payload, stored as a blob.
    public init(_ sealed: SealedPayload) {
        self = .blob(sealed.bytes)
    }

    /// A subject's keyed hash, stored as a blob.
    public init(_ subject: SubjectHash) {
        self = .blob(subject.bytes)
    }

    /// A subject's keyed hash, or NULL for a row about nothing in particular.
    public init(_ subject: SubjectHash?) {
        self = subject.map { .blob($0.bytes) } ?? .null
    }

    /// The name of this value's type, for messages: `"integer"`, `"blob"`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}
