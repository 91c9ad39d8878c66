/// What the app tells the user, once, after kept data was cleared because the key that
/// sealed it could not be read any more.
///
/// It survives until the app says it was shown (``DataKeyVault/acknowledgeNotice()``)
/// and is never shown again after that. It holds no secret: a reason and a count.
public struct KeyLossNotice: Sendable, Equatable, CustomStringConvertible {
    /// Why the key could not be read.
    ///
    /// Growable: a struct over a private enum, so a later version may add one as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case keyMissing, keyUnreadable, keyChanged
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The reason a row of the vault's ledger names (`keyMissing`), or `nil` for a name
        /// this version does not know.
        public init?(rawValue: String) {
            guard let base = Base(rawValue: rawValue) else { return nil }
            self.base = base
        }

        /// The reason's name, as the vault's ledger stores it: `keyMissing`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }

        /// The key store no longer holds the key (a reset keyring, another machine).
        public static let keyMissing = Reason(.keyMissing)
        /// The key store holds something that is not a 32-byte key.
        public static let keyUnreadable = Reason(.keyUnreadable)
        /// The key store holds a key, but not the one the rows were sealed under.
        public static let keyChanged = Reason(.keyChanged)
    }

    /// Why the key could not be read.
    public let reason: Reason
    /// How many kept rows were deleted.
    public let rowsCleared: Int

    /// The notice that `rowsCleared` rows were deleted because of `reason`.
    public init(reason: Reason, rowsCleared: Int) {
        self.reason = reason
        self.rowsCleared = rowsCleared
    }

    /// One line for the user.
    public var description: String {
        let why =
            switch reason.base {
            case .keyMissing: "its key is gone from the keyring (the keyring was reset, or this is another machine)"
            case .keyUnreadable: "its key in the keyring is damaged"
            case .keyChanged: "it was sealed under another key than the keyring's (data from another machine?)"
            }
        let rows = rowsCleared == 1 ? "1 item" : "\(rowsCleared) items"
        return "Saved data was cleared (\(rows)): \(why). A new key was made; nothing else was touched."
    }
}
