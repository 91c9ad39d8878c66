import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed
import Testing

@testable import KeepKeptData

@Suite("The chats module's last open chat")
struct ChatsKeeperTests {
    private func keeper(_ store: any ChatsStorePort = ChatsMemoryStore()) throws -> (ChatsKeeper, AESGCMSealer) {
        let sealer = try AESGCMSealer(dataKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        return (ChatsKeeper(store: store, sealer: sealer, now: TestClock().reading), sealer)
    }

    @Test("the last open chat is the one set last, and none before any is set")
    func lastOpenChat() async throws {
        let directory = try TemporaryDirectory()
        let store = try await ChatsSQLiteStore.open(try SQLiteDatabase(path: directory.appending("kept.sqlite")))
        let (chats, _) = try keeper(store)
        #expect(try await chats.lastOpenChat() == nil)
        try await chats.setLastOpenChat("first")
        try await chats.setLastOpenChat("second")
        #expect(try await chats.lastOpenChat() == "second")
    }

    @Test("removing the last open chat forgets it; removing another chat leaves it")
    func removingChats() async throws {
        let (chats, _) = try keeper()
        try await chats.setLastOpenChat("open")
        try await chats.chatRemoved("other")
        #expect(try await chats.lastOpenChat() == "open")
        try await chats.chatRemoved("open")
        #expect(try await chats.lastOpenChat() == nil)
    }

    @Test("an empty chat id is refused, and the kept one stays")
    func emptyIdRefused() async throws {
        let (chats, _) = try keeper()
        try await chats.setLastOpenChat("open")
        let error = await #expect(throws: KeptError.self) { try await chats.setLastOpenChat("") }
        #expect(error?.code == .refused)
        #expect(try await chats.lastOpenChat() == "open")
    }

    @Test("a last open chat this build cannot read is reported at launch and left as it is")
    func unreadableIsLeft() async throws {
        let store = ChatsMemoryStore()
        let (chats, sealer) = try keeper(store)
        let binding = SealBinding(
            owner: ChatsKeeper.owner, kind: LastOpenChat.kind, shapeVersion: 2, subject: nil, millisecondsSince1970: 5)
        let newer = KeptRecord(
            kind: LastOpenChat.kind, subject: nil, shapeVersion: 2, at: KeptInstant(millisecondsSince1970: 5),
            sealed: try sealer.seal(Array(#"{"chats":["a"]}"#.utf8), for: binding))
        try await store.keepPreference(newer)
        let report = try await chats.launch()
        #expect(report.problems.map(\.code) == [.unreadable])
        #expect(report.preferencesUpgraded == [])
        await #expect(throws: KeptError.self) { try await chats.lastOpenChat() }
        await #expect(throws: KeptError.self) { try await chats.chatRemoved("a") }
        #expect(await store.preference(LastOpenChat.kind) == newer)
    }
}
