import KeepChatIndex
import KeepPorts
import KeepSealed

/// The chat index of sealed chats, on the chats' own data key
/// (``/KeepSealed/IndexSealer``): every title, piece of the vocabulary and bucket of
/// postings is AES-256-GCM bound to where it is stored, and the key check tells an index
/// made under another key (or plain) from this one, so it is rebuilt, never misread.
struct SealedChatIndexing: ChatIndexSealing {
    private let sealer: IndexSealer

    /// The index's sealing under the chats' `dataKey` (its copy is not kept).
    init(dataKey: [UInt8]) throws(SealingError) {
        sealer = try IndexSealer(dataKey: dataKey)
    }

    var keyCheck: [UInt8] { sealer.keyCheck }
    var isSealed: Bool { true }

    func seal(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8] {
        try sealer.seal(bytes, binding: binding)
    }
    func open(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8] {
        try sealer.open(bytes, binding: binding)
    }
}
