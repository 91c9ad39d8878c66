/// The module that owns a kind of kept data: its name is the prefix of its tables and is
/// bound into every payload it seals.
///
/// An owner's name is 1–32 characters of `a-z 0-9`, starting with a letter, and is
/// neither `keep` nor `sqlite` (those prefixes belong to the bookkeeping and to SQLite).
/// The name is written in code (`"engines"`), so it is checked where it is used: a
/// migration run for an owner with an invalid name is refused with a typed error.
public struct KeptOwner: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The owner's name as written in code (`engines`), unchecked: ``problem`` says whether
    /// it can name an owner.
    public let name: String

    /// The owner called `name`. Nothing is checked here; a migration for an owner whose
    /// ``problem`` is not `nil` is refused.
    public init(_ name: String) {
        self.name = name
    }

    public init(stringLiteral name: String) {
        self.init(name)
    }

    /// `engines_`: what every table, index, trigger and view of this owner starts with.
    public var tablePrefix: String { name + "_" }

    /// Why `name` cannot be an owner's name, or `nil` when it can.
    public var problem: String? {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (0x61...0x7a).contains(first) else {
            return "an owner's name starts with a letter a-z"
        }
        guard bytes.count <= 32, bytes.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) }) else {
            return "an owner's name is at most 32 characters of a-z and 0-9"
        }
        if Self.reserved.contains(name) { return "\"\(name)\" is reserved" }
        return nil
    }

    public var description: String { name }

    /// Prefixes that are not an owner's: Keep's bookkeeping tables and SQLite's own.
    private static let reserved: Set<String> = ["keep", "sqlite"]
}
