import KeepPorts

/// Why nothing is kept between launches, in words a settings screen or `keep doctor`
/// can show.
public enum NotKeptReason: Sendable, Equatable, CustomStringConvertible {
    /// The key store is not secure storage (`SecretProtection.processMemory`): a data
    /// key there would be lost at exit, so no key is made and nothing is kept.
    case noSecureStore(SecretProtection)
    /// The key store could not be asked this time (locked, not running). Kept data is
    /// left exactly as it was, for a launch that can reach the key.
    case keyStoreUnavailable(SecretsError)

    public var description: String {
        switch self {
        case .noSecureStore:
            "nothing is kept between launches: there is no secure store (keyring) for the key that seals kept data"
        case .keyStoreUnavailable(let error):
            "nothing is kept this time: the key that seals kept data could not be read (\(error)); "
                + "what was kept is left as it is"
        }
    }
}
