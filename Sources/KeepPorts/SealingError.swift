/// A failure to seal or open a payload, saying what failed and never what was sealed.
///
/// ``description`` names the operation and, for a libcrypto failure, the call and the
/// library's own error code; it never includes a payload, a subject or a key.
public struct SealingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notAuthentic, malformed, library
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The payload did not authenticate: it was altered, sealed under another key, or
        /// sealed for another binding (owner, kind, shape version or subject).
        public static let notAuthentic = Code(.notAuthentic)
        /// The bytes cannot be what they claim: too short, an unknown format, a key or
        /// hash of the wrong length.
        public static let malformed = Code(.malformed)
        /// A libcrypto call failed (out of memory, no randomness, a missing algorithm).
        public static let library = Code(.library)

        /// The code's name, as a message or a report shows it: `notAuthentic`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The operation that failed: `"open"`, `"seal"`, or the libcrypto call (`"RAND_bytes"`).
    public let operation: String
    /// What went wrong, in words; never a value.
    public let detail: String
    /// libcrypto's packed error code (`ERR_get_error`), when the library reported one.
    public let libraryError: UInt?

    /// The error for `operation`, saying in `detail` what went wrong (never a value), with
    /// libcrypto's code when it gave one.
    public init(code: Code, operation: String, detail: String, libraryError: UInt? = nil) {
        self.code = code
        self.operation = operation
        self.detail = detail
        self.libraryError = libraryError
    }

    /// `open failed: the payload did not authenticate (...)`.
    public var description: String {
        var text = "\(operation) failed: \(detail)"
        if let libraryError { text += " (libcrypto error 0x\(String(libraryError, radix: 16)))" }
        return text
    }
}
