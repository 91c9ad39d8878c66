import KeepPorts
import KeepSQLite

/// A failure of the data-key vault that is not about the key store: the database could
/// not be read or written, its lock file could not be taken, or libcrypto failed. (A key
/// store that cannot be reached is not an error but a ``VaultState/notKept(_:)`` state.)
///
/// `code` is what a caller switches on; the failure below it (``database``, ``sealing``,
/// ``lock``) is there for the code it belongs to.
public struct VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case database, sealing, lock
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The kept-data database could not be read or written.
        public static let database = Code(.database)
        /// libcrypto failed to make or check the key.
        public static let sealing = Code(.sealing)
        /// The vault's lock file (``DataKeyVault/lockPath``) could not be taken.
        public static let lock = Code(.lock)

        /// The code's name: `database`, `sealing`, `lock`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The database's own error, for ``Code/database``.
    public let database: SQLiteError?
    /// libcrypto's, for ``Code/sealing``.
    public let sealing: SealingError?
    /// The lock file's, for ``Code/lock``.
    public let lock: StorageError?

    private init(_ code: Code, database: SQLiteError? = nil, sealing: SealingError? = nil, lock: StorageError? = nil) {
        self.code = code
        self.database = database
        self.sealing = sealing
        self.lock = lock
    }

    /// The kept-data database could not be read or written.
    public static func database(_ error: SQLiteError) -> VaultError {
        VaultError(.database, database: error)
    }

    /// libcrypto failed to make or check the key.
    public static func sealing(_ error: SealingError) -> VaultError {
        VaultError(.sealing, sealing: error)
    }

    /// The vault's lock file could not be taken.
    public static func lock(_ error: StorageError) -> VaultError {
        VaultError(.lock, lock: error)
    }

    /// `kept data: <the failure below>`.
    public var description: String {
        if let database { return "kept data: \(database)" }
        if let sealing { return "kept data: \(sealing)" }
        if let lock { return "kept data: \(lock)" }
        return "kept data: \(code)"
    }
}
