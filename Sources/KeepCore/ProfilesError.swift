import KeepPorts

/// Why the servers file could not be read or written.
///
/// `code` is what a caller switches on; ``reason`` and ``storage`` are there for the codes
/// they belong to.
public struct ProfilesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case unreadable, storage
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The file is not a JSON object: it is never written over; fix or remove it.
        public static let unreadable = Code(.unreadable)
        /// The store failed.
        public static let storage = Code(.storage)

        /// The code's name: `unreadable`, `storage`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// Why the file cannot be used, for ``Code/unreadable``.
    public let reason: String?
    /// The store's failure, for ``Code/storage``.
    public let storage: StorageError?

    private init(_ code: Code, reason: String? = nil, storage: StorageError? = nil) {
        self.code = code
        self.reason = reason
        self.storage = storage
    }

    /// The file is not a JSON object: it is never written over; fix or remove it.
    public static func unreadable(reason: String) -> ProfilesError {
        ProfilesError(.unreadable, reason: reason)
    }

    /// The store failed.
    public static func storage(_ error: StorageError) -> ProfilesError {
        ProfilesError(.storage, storage: error)
    }

    public var description: String {
        switch code.base {
        case .unreadable:
            "the servers file (\(Profiles.key)) cannot be used: \(reason ?? "it is not a JSON object"); fix it or "
                + "remove it (keep store rm settings profiles)"
        case .storage:
            "the servers file cannot be read or written: \(storage.map { "\($0)" } ?? "the store failed")"
        }
    }
}
