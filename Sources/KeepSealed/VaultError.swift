import KeepPorts
import KeepSQLite

/// A failure of the data-key vault that is not about the key store: the database could
/// not be read or written, its lock file could not be taken, or libcrypto failed. (A key store that cannot be reached is
/// not an error but a ``VaultState/notKept(_:)`` state.)
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kept-data database could not be read or written.
    case database(SQLiteError)
    /// libcrypto failed to make or check the key.
    case sealing(SealingError)
    /// The vault's lock file (``DataKeyVault/lockPath``) could not be taken.
    case lock(StorageError)

    public var description: String {
        switch self {
        case .database(let error): "kept data: \(error)"
        case .sealing(let error): "kept data: \(error)"
        case .lock(let error): "kept data: \(error)"
        }
    }
}
