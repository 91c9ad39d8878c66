/// A failure to reach a secrets store, saying what failed and never the secret.
///
/// "Absent" is not an error (`get` answers `nil`); everything here is a store that could
/// not be asked. ``description`` names the operation and the ref and says what to do; it
/// never includes a value.
public struct SecretsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case noSessionBus, noService, noDefaultCollection, locked, invalidRef, notPersistent, backend
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// There is no D-Bus session bus to reach a keyring on.
        public static let noSessionBus = Code(.noSessionBus)
        /// Nothing answers as the Secret Service on the bus.
        public static let noService = Code(.noService)
        /// The Secret Service has no default collection to keep items in.
        public static let noDefaultCollection = Code(.noDefaultCollection)
        /// The collection is locked; it is not unlocked behind the user's back.
        public static let locked = Code(.locked)
        /// The ref cannot name a keychain item (a slot outside the set, an account with NUL).
        public static let invalidRef = Code(.invalidRef)
        /// The store exists but does not keep secrets across launches, so a set would be lost.
        public static let notPersistent = Code(.notPersistent)
        /// The store answered with an error of its own.
        public static let backend = Code(.backend)

        /// The code's name, as a message or a report shows it: `locked`, `noService`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The operation that failed: `"get"`, `"set"`, `"has"`, `"delete"`, `"connect"`.
    public let operation: String
    /// The secret involved, when there is one; its name, never its value.
    public let ref: SecretRef?
    /// What went wrong and what to do, in words; never a value.
    public let detail: String?

    /// The error for `operation` on `ref`; without a `detail`, ``description`` says what
    /// the code means and what to do.
    public init(code: Code, operation: String, ref: SecretRef? = nil, detail: String? = nil) {
        self.code = code
        self.operation = operation
        self.ref = ref
        self.detail = detail
    }

    /// `get of openai/"default" failed: the login keyring is locked; unlock it ...`.
    public var description: String {
        var text = operation
        if let ref { text += " of \(ref)" }
        text += " failed: "
        text += detail ?? Self.explanation(code)
        return text
    }

    private static func explanation(_ code: Code) -> String {
        switch code.base {
        case .noSessionBus: "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set or not reachable)"
        case .noService: "no Secret Service (GNOME Keyring, KWallet) answers on the session bus"
        case .noDefaultCollection: "the Secret Service has no default keyring"
        case .locked: "the keyring is locked; unlock it (log in to the desktop, or use your keyring tool) and retry"
        case .invalidRef: "the slot or account cannot name a keychain item"
        case .notPersistent: "secrets are held in process memory only here, so a stored key would be lost on exit"
        case .backend: "the secrets store reported an error"
        }
    }
}
