import Foundation
import KeepPorts
import KeepSQLite
import KeepSealed

/// A failure of kept data, saying what failed and never what is kept.
///
/// `code` is what a caller switches on; `operation` and `detail` are for the person
/// reading the message. The description names the operation, the owner's kind or the
/// server's address, SQLite's or libcrypto's codes — never a payload, a model list or a
/// key.
package struct KeptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// The disk holding the kept-data database is full (`SQLITE_FULL`, `ENOSPC`, `EDQUOT`).
        case full
        /// The kept-data database may not be opened or written (`EACCES`, `EPERM`, `EROFS`,
        /// a read-only file).
        case unavailable
        /// Any other failure of the kept-data database.
        case database
        /// Sealing a payload failed (libcrypto).
        case sealing
        /// Bad input, refused before anything was changed: an address that is not a
        /// server's, a retention outside 1–365 days, a row a store cannot hold.
        case refused
        /// A kept payload cannot be read: it does not open under the key, its shape is one
        /// this build does not know, or its bytes are not that shape. It is left as it is.
        case unreadable
        /// An action that acts on the server was asked of a kept reading; it waits for a
        /// fresh one.
        case waitsForFreshReading
    }

    /// What kind of failure this is: what a caller switches on.
    package let code: Code
    /// What was being done: `"keep the models reading"`, `"read the retention preference"`.
    package let operation: String
    /// What went wrong, in words; never a kept value.
    package let detail: String
    /// The database's own error, when the database failed.
    package let database: SQLiteError?
    /// The sealer's own error, when sealing or opening failed.
    package let sealing: SealingError?

    /// The error of kind `code` while doing `operation`, saying what went wrong in `detail`
    /// (never a kept value), with the database's or the sealer's own error when one failed.
    package init(
        _ code: Code, operation: String, detail: String, database: SQLiteError? = nil, sealing: SealingError? = nil
    ) {
        self.code = code
        self.operation = operation
        self.detail = detail
        self.database = database
        self.sealing = sealing
    }

    /// The database failed during `operation`; a full or refused disk keeps its own code.
    package static func database(_ operation: String, _ error: SQLiteError) -> KeptError {
        let code: Code =
            switch error.code {
            case .full: .full
            case .unavailable: .unavailable
            default: .database
            }
        return KeptError(code, operation: operation, detail: error.description, database: error)
    }

    /// Sealing or opening failed during `operation`.
    package static func sealing(_ operation: String, _ error: SealingError) -> KeptError {
        let code: Code = error.code == .library ? .sealing : .unreadable
        return KeptError(code, operation: operation, detail: error.description, sealing: error)
    }

    /// `operation` was refused because of bad input, said in `detail`.
    package static func refused(_ operation: String, _ detail: String) -> KeptError {
        KeptError(.refused, operation: operation, detail: detail)
    }

    /// `keep the models reading failed: <detail>`.
    package var description: String { "\(operation) failed: \(detail)" }
}
