import KeepPorts

/// Why nothing is kept between launches, in words a settings screen or `keep doctor`
/// can show.
///
/// `code` is what a caller switches on; ``protection`` and ``keyStoreError`` are there for
/// the codes they belong to.
public struct NotKeptReason: Sendable, Equatable, CustomStringConvertible {
    /// Which reason this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add one as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case noSecureStore, keyStoreUnavailable
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The key store is not secure storage: a data key there would be lost at exit.
        public static let noSecureStore = Code(.noSecureStore)
        /// The key store could not be asked this time (locked, not running).
        public static let keyStoreUnavailable = Code(.keyStoreUnavailable)

        /// The code's name: `noSecureStore`, `keyStoreUnavailable`.
        public var description: String { base.rawValue }
    }

    /// Which reason this is: what a caller switches on.
    public let code: Code
    /// How the key store protects what it holds, for ``Code/noSecureStore``.
    public let protection: SecretProtection?
    /// Why the key store could not be asked, for ``Code/keyStoreUnavailable``.
    public let keyStoreError: SecretsError?

    private init(_ code: Code, protection: SecretProtection? = nil, keyStoreError: SecretsError? = nil) {
        self.code = code
        self.protection = protection
        self.keyStoreError = keyStoreError
    }

    /// The key store is not secure storage (`SecretProtection.processMemory`): a data
    /// key there would be lost at exit, so no key is made and nothing is kept.
    public static func noSecureStore(_ protection: SecretProtection) -> NotKeptReason {
        NotKeptReason(.noSecureStore, protection: protection)
    }

    /// The key store could not be asked this time (locked, not running). Kept data is
    /// left exactly as it was, for a launch that can reach the key.
    public static func keyStoreUnavailable(_ error: SecretsError) -> NotKeptReason {
        NotKeptReason(.keyStoreUnavailable, keyStoreError: error)
    }

    public var description: String {
        switch code.base {
        case .noSecureStore:
            "nothing is kept between launches: there is no secure store (keyring) for the key that seals kept data"
        case .keyStoreUnavailable:
            "nothing is kept this time: the key that seals kept data could not be read ("
                + (keyStoreError.map { "\($0)" } ?? "the key store failed") + "); what was kept is left as it is"
        }
    }
}
