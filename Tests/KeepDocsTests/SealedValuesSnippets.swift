import KeepPorts
import KeepSealed

/// The code of the sealed-values article, compiled, and run by the tests on a memory store.
enum SealedValuesSnippets {
    /// Seals chats and drafts of `fileStore` under `dataKey`, writes a chat's head and
    /// appends a turn; answers how the chat is kept.
    static func sealAChat(
        _ fileStore: any StoragePort, dataKey: [UInt8], headLine: String, turnLine: String
    ) async throws -> SealedReading.State? {
        let chats = try SealedStorage(fileStore, dataKey: dataKey, sealing: [.chats, .drafts])
        try await chats.write(StorageKey(.chats, "c1"), headLine + "\n")  // one sealed record
        _ = try await chats.append(StorageKey(.chats, "c1")) { _ in turnLine }  // a record of its own
        let state = try await chats.reading(StorageKey(.chats, "c1"))?.state  // .sealed, .plain, .partlySealed
        return state
    }
}
