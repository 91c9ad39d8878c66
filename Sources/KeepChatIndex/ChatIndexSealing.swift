import KeepPorts

/// How the chat index keeps what it holds as private as the chats: the token that stands
/// for each trigram, and the seal over each title and each bucket of tokens.
///
/// With sealed chats the composition root hands the index an implementation on the chats'
/// own key: tokens are a keyed hash, so the index says which chats share a trigram only to
/// whoever holds the key, and titles and buckets are sealed, each bound to where it is
/// stored. With plain chats it hands ``PlainChatIndexing``, which hides nothing, as the
/// chat files hide nothing.
///
/// Promises of an implementation: ``token(for:)`` is the same for the same trigram under
/// the same key, and two trigrams share a token about as rarely as two random 64-bit
/// values; ``open(_:binding:)`` gives back what ``seal(_:binding:)`` sealed for the same
/// binding and refuses anything else (another binding, altered bytes, another key) with a
/// typed error; ``keyCheck`` names the key without revealing it, so an index made under
/// another key is rebuilt rather than misread.
package protocol ChatIndexSealing: Sendable {
    /// Names the key, so an index made under another one is recognised.
    var keyCheck: [UInt8] { get }
    /// Whether titles and buckets are sealed (false: the index holds them as they are).
    var isSealed: Bool { get }
    /// The token that stands for the trigram `key` (see ``Trigrams``).
    func token(for key: UInt64) throws(SealingError) -> UInt64
    /// `bytes` sealed for `binding` (where they are stored: a table, a row).
    func seal(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8]
    /// What `seal(_:binding:)` sealed for `binding`.
    func open(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8]
}

/// The index of plain chats: tokens are the trigrams' keys, mixed so they spread over the
/// buckets, and nothing is sealed.
package struct PlainChatIndexing: ChatIndexSealing {
    package init() {}

    package var keyCheck: [UInt8] { Array("plain".utf8) }
    package var isSealed: Bool { false }

    package func token(for key: UInt64) -> UInt64 { Trigrams.mix(key) }
    package func seal(_ bytes: [UInt8], binding: [UInt8]) -> [UInt8] { bytes }
    package func open(_ bytes: [UInt8], binding: [UInt8]) -> [UInt8] { bytes }
}
