import KeepPorts

/// Why a setting could not be read, changed or stored.
///
/// `code` is what a caller switches on; the facts below it (``key``, ``reason``, ``path``,
/// ``storage``, ``secrets``) are there for the codes they belong to. The description names
/// the setting and what went wrong; it never contains a value, so a key typed into the
/// wrong field cannot leak through an error message.
public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case unknownKey, refused, secretKey, notSecret, storage, secrets, unreadableFile
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// No setting has this key.
        public static let unknownKey = Code(.unknownKey)
        /// The value breaks the setting's rule; the reason says what the setting accepts.
        public static let refused = Code(.refused)
        /// The setting is a secret: it is set with `setSecret`, never with `set`.
        public static let secretKey = Code(.secretKey)
        /// The setting is not a secret, so it has no keychain value to set, clear or read.
        public static let notSecret = Code(.notSecret)
        /// The settings file could not be read or written.
        public static let storage = Code(.storage)
        /// The keychain could not be reached.
        public static let secrets = Code(.secrets)
        /// The settings file cannot be read as text, so it cannot be kept aside and is not
        /// written over.
        public static let unreadableFile = Code(.unreadableFile)

        /// The code's name: `unknownKey`, `refused`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The setting's key, for ``Code/unknownKey``, ``Code/refused``, ``Code/secretKey`` and
    /// ``Code/notSecret``.
    public let key: String?
    /// Why, in words: what a refused setting accepts, why the file is unreadable.
    public let reason: String?
    /// The settings file, for ``Code/unreadableFile``.
    public let path: String?
    /// The store's failure, for ``Code/storage``.
    public let storage: StorageError?
    /// The keychain's failure, for ``Code/secrets``.
    public let secrets: SecretsError?

    private init(
        _ code: Code, key: String? = nil, reason: String? = nil, path: String? = nil, storage: StorageError? = nil,
        secrets: SecretsError? = nil
    ) {
        self.code = code
        self.key = key
        self.reason = reason
        self.path = path
        self.storage = storage
        self.secrets = secrets
    }

    /// No setting has this key.
    public static func unknownKey(_ key: String) -> SettingsError {
        SettingsError(.unknownKey, key: key)
    }

    /// The value breaks the setting's rule; `reason` says what the setting accepts.
    public static func refused(key: String, reason: String) -> SettingsError {
        SettingsError(.refused, key: key, reason: reason)
    }

    /// The setting is a secret: it is set with `setSecret`, never with `set`.
    public static func secretKey(_ key: String) -> SettingsError {
        SettingsError(.secretKey, key: key)
    }

    /// The setting is not a secret, so it has no keychain value to set, clear or read.
    public static func notSecret(_ key: String) -> SettingsError {
        SettingsError(.notSecret, key: key)
    }

    /// The settings file could not be read or written.
    public static func storage(_ error: StorageError) -> SettingsError {
        SettingsError(.storage, storage: error)
    }

    /// The keychain could not be reached.
    public static func secrets(_ error: SecretsError) -> SettingsError {
        SettingsError(.secrets, secrets: error)
    }

    /// The settings file at `path` cannot be read as text, so it cannot be kept aside and
    /// is not written over.
    public static func unreadableFile(path: String, reason: String) -> SettingsError {
        SettingsError(.unreadableFile, reason: reason, path: path)
    }

    public var description: String {
        let key = key ?? ""
        switch code.base {
        case .unknownKey:
            return "there is no setting called \(StorageError.quoted(key))"
        case .refused:
            return reason ?? "\(key) was refused"
        case .secretKey:
            return "\(key) is a secret: it is kept in the keychain, never in the settings file; store it with setSecret"
        case .notSecret:
            return "\(key) is not a secret setting"
        case .storage:
            return "settings: \(storage.map { "\($0)" } ?? "the store failed")"
        case .secrets:
            return "settings: \(secrets.map { "\($0)" } ?? "the keychain failed")"
        case .unreadableFile:
            return "the settings file \(path ?? "") is unreadable (\(reason ?? "")); it is left as it is: move it away "
                + "or fix it, then retry"
        }
    }
}
