import Foundation
import KeepPorts

/// Where a data root records whether its chats are sealed: one small JSON value in the
/// `cache` namespace (`chats-sealing`), holding the state and the check of the chats' data
/// key, never the key.
///
/// It is written before the first sealed value (so a sealed chat is never found without
/// it), changed to ``Phase/sealing`` or ``Phase/unsealing`` before `keep chats seal` or
/// `unseal` rewrites the first chat, and to the phase reached after the last. No marker is
/// a store that was never decided: plain, and sealed from its first chat when a keyring
/// answers and it holds no chat yet.
package struct ChatSealingMarker: Codable, Sendable, Equatable {
    /// What the store is, or is becoming.
    package enum Phase: String, Codable, Sendable {
        /// Plain: decided so (it held chats before a keyring answered), or unsealed.
        case plain
        /// Every value written sealed; chats written before may still be plain.
        case sealed
        /// `keep chats seal` is part-way: some chats are sealed, some not yet.
        case sealing
        /// `keep chats unseal` is part-way: some chats are plain again, some still sealed.
        case unsealing
    }

    /// The store's phase.
    package var phase: Phase
    /// The data key's check (base64), when any chat may be sealed: names the key without
    /// revealing it.
    package var keyCheck: String?

    /// The key in the store the marker is kept under.
    package static let key = StorageKey(.cache, "chats-sealing")

    package init(phase: Phase, keyCheck: [UInt8]?) {
        self.phase = phase
        self.keyCheck = keyCheck.map { Data($0).base64EncodedString() }
    }

    /// Whether chats may be sealed under a key (any phase but plain).
    package var needsKey: Bool { phase != .plain }

    /// The marker in `storage`, `nil` when there is none; one that does not parse is a
    /// `corrupt` error naming it (the store is then neither guessed plain nor sealed).
    package static func read(_ storage: any StoragePort) async throws(StorageError) -> ChatSealingMarker? {
        guard let text = try await storage.read(key) else { return nil }
        guard let marker = try? JSONDecoder().decode(ChatSealingMarker.self, from: Data(text.utf8)) else {
            throw StorageError(
                code: .corrupt, operation: "read the chats' sealing marker", path: key.description,
                reason: "it is not the marker keep writes; remove it only if no chat is sealed")
        }
        return marker
    }

    /// Writes the marker into `storage`.
    package func write(_ storage: any StoragePort) async throws(StorageError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch {
            throw StorageError(code: .io, operation: "encode the chats' sealing marker", path: Self.key.description)
        }
        try await storage.write(Self.key, String(decoding: data, as: UTF8.self))
    }

    /// Whether `check` is the key check this marker names.
    package func names(_ check: [UInt8]) -> Bool {
        keyCheck == Data(check).base64EncodedString()
    }
}
