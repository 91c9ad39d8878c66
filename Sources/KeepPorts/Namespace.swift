/// The closed set of places a value can be stored.
///
/// A bare string key is unrepresentable: every ``StorageKey`` names one of these. Anything
/// that turns a user's or a disk's string into a namespace goes through
/// ``Namespace/parse(_:)``, which refuses an unknown name rather than inventing one.
public enum Namespace: String, CaseIterable, Sendable, Codable, Comparable {
    /// Chats, one value per chat.
    case chats
    /// The settings file, and nothing else.
    case settings
    /// What was typed and not yet sent, one value per chat.
    case drafts
    /// What can be rebuilt or only marks that something happened (the migration's
    /// done-marker).
    case cache
    /// The lines typed at an app's prompt, for recall: as private as the chats, so a
    /// namespace of its own (a sealing store seals it with them), never listed among them.
    case history

    /// The namespace called `name`, or a typed ``StorageError/Code/unknownNamespace`` error.
    ///
    /// Matching is exact: `Chats` and `chats ` are unknown, so a typo never creates a
    /// directory or reads the wrong data.
    public static func parse(_ name: String) throws(StorageError) -> Namespace {
        guard let namespace = Namespace(rawValue: name) else {
            throw StorageError.unknownNamespace(name)
        }
        return namespace
    }

    public static func < (lhs: Namespace, rhs: Namespace) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
