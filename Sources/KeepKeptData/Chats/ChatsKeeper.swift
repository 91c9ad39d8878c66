import Foundation
import KeepPorts
import KeepSealed

/// What the chats module keeps in kept data: the chat the user had open last, as a
/// sealed preference (the chats themselves live in the store, not here).
///
/// Promises: the last open chat is what was set last, or `nil`; a kept one this build
/// cannot read is a typed ``KeptError/Code/unreadable`` error and is left as it is until
/// the user opens another chat. Every failure is a typed ``KeptError``.
package struct ChatsKeeper: Sendable {
    /// The chats module: the prefix of its tables, bound into everything it seals.
    package static let owner: KeptOwner = "chats"

    let store: any ChatsStorePort
    let seal: OwnerSeal
    let now: @Sendable () -> Date

    package init(store: any ChatsStorePort, sealer: any SealingPort, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.seal = OwnerSeal(owner: Self.owner, sealer: sealer)
        self.now = now
    }

    /// Rewrites preferences kept in an older shape in the current one; what cannot be
    /// read is reported and left as it is. The chats module keeps no readings, so nothing
    /// is pruned.
    package func launch() async throws(KeptError) -> LaunchReport {
        var upgraded: [String] = []
        var problems: [KeptError] = []
        do throws(KeptError) {
            if let record = try await store.preference(LastOpenChat.kind), record.shapeVersion != LastOpenChat.version {
                let value = try seal.open(LastOpenChat.self, record)
                try await store.keepPreference(try seal.record(LastOpenChat.self, value, about: nil, at: record.at))
                upgraded.append(LastOpenChat.kind)
            }
        } catch  where error.code == .unreadable {
            problems.append(error)
        }
        return LaunchReport(owner: Self.owner, readingsPruned: 0, preferencesUpgraded: upgraded, problems: problems)
    }

    /// The id of the chat the user had open last, or `nil` when none was kept.
    package func lastOpenChat() async throws(KeptError) -> String? {
        guard let record = try await store.preference(LastOpenChat.kind) else { return nil }
        return try seal.open(LastOpenChat.self, record)
    }

    /// Keeps `chatId` as the chat the user has open; an empty id is refused.
    package func setLastOpenChat(_ chatId: String) async throws(KeptError) {
        guard !chatId.isEmpty else { throw .refused("keep the last open chat", "the chat id is empty") }
        try await store.keepPreference(try seal.record(LastOpenChat.self, chatId, about: nil, at: KeptInstant(now())))
    }

    /// Forgets the last open chat when it is `chatId` (that chat was removed); another
    /// chat's stays, and so does one that cannot be read (the typed error says so).
    package func chatRemoved(_ chatId: String) async throws(KeptError) {
        guard try await lastOpenChat() == chatId else { return }
        try await store.forgetPreference(LastOpenChat.kind)
    }
}

// MARK: - Kept as a preference

/// The `last-open-chat` preference of the chats module.
///
/// Shape 1: `{"chat": id}`.
enum LastOpenChat: KeptShape {
    static let kind = "last-open-chat"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        let chat: String
    }

    static func encode(_ value: String) throws(KeptError) -> [UInt8] {
        try json(V1(chat: value))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> String {
        guard version == 1 else { throw unknownVersion(version) }
        return try json(V1.self, from: bytes, version: version).chat
    }
}
