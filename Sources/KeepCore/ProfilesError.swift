import KeepPorts

/// Why the servers file could not be read or written.
public enum ProfilesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a JSON object: it is never written over; fix or remove it.
    case unreadable(reason: String)
    /// The store failed.
    case storage(StorageError)

    public var description: String {
        switch self {
        case .unreadable(let reason):
            "the servers file (\(Profiles.key)) cannot be used: \(reason); fix it or remove it "
                + "(keep store rm settings profiles)"
        case .storage(let error): "the servers file cannot be read or written: \(error)"
        }
    }
}
