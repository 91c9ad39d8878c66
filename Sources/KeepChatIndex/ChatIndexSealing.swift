import KeepPorts

/// How the chat index keeps what it holds as private as the chats: the seal over each title,
/// each piece of the vocabulary and each bucket of postings.
///
/// With sealed chats the composition root hands the index an implementation on the chats'
/// own key: titles, the vocabulary's pieces and the postings' buckets are sealed, each bound
/// to where it is stored, so the index holds no word of a chat in the clear and says which
/// chats share a word only to whoever holds the key. With plain chats it hands
/// ``PlainChatIndexing``, which hides nothing, as the chat files hide nothing.
///
/// Promises of an implementation: ``open(_:binding:)`` gives back what ``seal(_:binding:)``
/// sealed for the same binding and refuses anything else (another binding, altered bytes,
/// another key) with a typed error; ``keyCheck`` names the key without revealing it, so an
/// index made under another key is rebuilt rather than misread.
package protocol ChatIndexSealing: Sendable {
    /// Names the key, so an index made under another one is recognised.
    var keyCheck: [UInt8] { get }
    /// Whether what the index stores is sealed (false: the index holds it as it is).
    var isSealed: Bool { get }
    /// `bytes` sealed for `binding` (where they are stored: a table, a row).
    func seal(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8]
    /// What `seal(_:binding:)` sealed for `binding`.
    func open(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8]
}

/// The index of plain chats: nothing is sealed.
package struct PlainChatIndexing: ChatIndexSealing {
    package init() {}

    package var keyCheck: [UInt8] { Array("plain".utf8) }
    package var isSealed: Bool { false }

    package func seal(_ bytes: [UInt8], binding: [UInt8]) -> [UInt8] { bytes }
    package func open(_ bytes: [UInt8], binding: [UInt8]) -> [UInt8] { bytes }
}
