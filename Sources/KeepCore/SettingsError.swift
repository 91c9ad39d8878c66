import KeepPorts

/// Why a setting could not be read, changed or stored.
///
/// The description names the setting and what went wrong; it never contains a value, so
/// a key typed into the wrong field cannot leak through an error message.
public enum SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No setting has this key.
    case unknownKey(String)
    /// The value breaks the setting's rule; `reason` says what the setting accepts.
    case refused(key: String, reason: String)
    /// The setting is a secret: it is set with `setSecret`, never with `set`.
    case secretKey(String)
    /// The setting is not a secret, so it has no keychain value to set, clear or read.
    case notSecret(String)
    /// The settings file could not be read or written.
    case storage(StorageError)
    /// The keychain could not be reached.
    case secrets(SecretsError)
    /// The settings file cannot be read as text, so it cannot be kept aside and is not
    /// written over; `path` names it.
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownKey(let key):
            "there is no setting called \(StorageError.quoted(key))"
        case .refused(_, let reason):
            reason
        case .secretKey(let key):
            "\(key) is a secret: it is kept in the keychain, never in the settings file; store it with setSecret"
        case .notSecret(let key):
            "\(key) is not a secret setting"
        case .storage(let error):
            "settings: \(error)"
        case .secrets(let error):
            "settings: \(error)"
        case .unreadableFile(let path, let reason):
            "the settings file \(path) is unreadable (\(reason)); it is left as it is: move it away or fix it, then retry"
        }
    }
}
