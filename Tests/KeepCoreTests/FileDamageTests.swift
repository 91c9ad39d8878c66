import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One damaged file on disk is that file's problem: the chat, draft or settings file it
/// holds is reported, and everything beside it goes on working.
@Suite("Damage stays local")
struct FileDamageTests {
    /// Ways one file can be damaged on a real disk, planted at a key's file name.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case symlinkToAChat = "a symbolic link to a readable chat"
        case dangling = "a dangling symbolic link"
        case directory = "a directory"
        case fifo = "a FIFO"
        case badBytes = "bytes that are not UTF-8"

        var testDescription: String { rawValue }

        /// Plants the damage at `path`; `readable` is a regular file with a good value.
        func plant(at path: String, readable: String) throws {
            switch self {
            case .symlinkToAChat:
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: readable)
            case .dangling: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "nowhere")
            case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .fifo:
                guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            case .badBytes: try Data([0x7b, 0xff, 0xfe, 0x7d]).write(to: URL(fileURLWithPath: path))
            }
        }

        /// Words the reason must hold, so it says what is wrong.
        var reason: String {
            switch self {
            case .symlinkToAChat, .dangling: "symbolic link"
            case .directory, .fifo: "not a regular file"
            case .badBytes: "not valid UTF-8"
            }
        }
    }

    /// A file store in a fresh directory holding two readable chats, "good-a" and "good-b".
    struct Fixture {
        let directory: TemporaryDirectory
        let store: FileStore
        let repository: ChatRepository

        init() async throws {
            directory = try TemporaryDirectory()
            store = try FileStore(root: directory.path)
            repository = ChatRepository(storage: store)
            for id in ["good-a", "good-b"] {
                try await repository.save(
                    Chat(
                        id: id, title: id,
                        messages: [
                            ChatMessage(
                                role: .user, text: "needle in \(id)", time: Date(timeIntervalSince1970: 1_750_000_000))
                        ],
                        created: Date(timeIntervalSince1970: 1_750_000_000)))
            }
        }

        func file(_ namespace: Namespace, _ id: String) -> String {
            directory.appending("store/\(namespace.rawValue)/\(id)")
        }
    }

    @Test(
        "one damaged chat file is that chat's problem: the others are listed and searched", arguments: Damage.allCases)
    func oneDamagedChatStaysLocal(_ damage: Damage) async throws {
        let fixture = try await Fixture()
        try damage.plant(at: fixture.file(.chats, "broken"), readable: fixture.file(.chats, "good-a"))

        let listing = try await fixture.repository.scan()
        #expect(listing.chats.map(\.id).sorted() == ["good-a", "good-b"])
        #expect(listing.unreadable.map(\.id) == ["broken"])
        #expect(listing.unreadable.first?.reason.contains(damage.reason) == true, "\(listing.unreadable)")
        #expect(try await fixture.repository.search("needle").map(\.chatId).sorted() == ["good-a", "good-b"])
        // Read on its own, it is the chat's problem too, never the store's.
        await #expect {
            _ = try await fixture.repository.read("broken")
        } throws: { error in
            guard let error = error as? ChatError, error.code == .unreadable else { return false }
            return error.chat?.id == "broken"
        }
        // Removing it is the user's word, and works (a directory keep did not make, it never
        // removes: that says so, and is left).
        if damage == .directory {
            await #expect(throws: ChatError.self) { try await fixture.repository.delete("broken") }
        } else {
            #expect(try await fixture.repository.delete("broken"))
            #expect(try await fixture.repository.scan().unreadable.isEmpty)
        }
    }

    @Test("a chat keep may not read (EACCES) is that chat's problem; a failing disk (EIO) is the store's")
    func aRefusedChatStaysLocal() async throws {
        let fixture = try await Fixture()
        let storage = FaultyStorage(fixture.store)
        let repository = ChatRepository(storage: storage)
        await storage.fail([.read], errno: EACCES, only: StorageKey(.chats, "good-b"))
        let listing = try await repository.scan()
        #expect(listing.chats.map(\.id) == ["good-a"])
        #expect(listing.unreadable.map(\.id) == ["good-b"])
        #expect(listing.unreadable.first?.reason.contains("EACCES") == true)

        // The pair: an error that is not one file's own still fails the listing.
        await storage.fail([.read], errno: EIO, only: StorageKey(.chats, "good-b"))
        await #expect(throws: ChatError.self) { try await repository.scan() }
    }

    @Test("a draft that cannot be read never hides its chat, and is never written over", arguments: Damage.allCases)
    func aDamagedDraftStaysLocal(_ damage: Damage) async throws {
        let fixture = try await Fixture()
        let readable = fixture.directory.appending("elsewhere")
        try Data("the user's own file".utf8).write(to: URL(fileURLWithPath: readable))
        try FileManager.default.createDirectory(
            atPath: fixture.directory.appending("store/drafts"), withIntermediateDirectories: true)
        let draft = fixture.file(.drafts, "good-a")
        try damage.plant(at: draft, readable: readable)
        let before = try FileManager.default.attributesOfItem(atPath: draft)[.type] as? FileAttributeType

        #expect(try await fixture.repository.read("good-a")?.id == "good-a")
        await #expect {
            _ = try await fixture.repository.draft(for: "good-a")
        } throws: { error in
            guard let error = error as? ChatError, error.code == .unreadableDraft else { return false }
            return error.chat?.id == "good-a"
        }
        #expect(try await fixture.repository.hasDraft(for: "good-a"))
        // Asking again in that chat would replace the draft: refused, and nothing changes.
        await #expect(throws: ChatError.self) { try await fixture.repository.saveDraft("again", for: "good-a") }
        #expect(try FileManager.default.attributesOfItem(atPath: draft)[.type] as? FileAttributeType == before)
        #expect(try String(contentsOfFile: readable, encoding: .utf8) == "the user's own file")

        // The pair: a readable draft is the user's earlier question, replaced by the next.
        try await fixture.repository.saveDraft("first", for: "good-b")
        try await fixture.repository.saveDraft("second", for: "good-b")
        #expect(try await fixture.repository.draft(for: "good-b") == "second")
    }

    @Test("a settings file that is a symbolic link is an unreadable settings file: defaults, and never written through")
    func aSymlinkedSettingsFileIsUnreadable() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let dotfile = directory.appending("dotfiles-settings.json")
        let original = #"{"engineId": "remote"}"#
        try Data(original.utf8).write(to: URL(fileURLWithPath: dotfile))
        try FileManager.default.createDirectory(
            atPath: directory.appending("store/settings"), withIntermediateDirectories: true)
        let link = directory.appending("store/settings/settings")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dotfile)

        guard
            case .ready(let core) = await boot(
                storage: store, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("a symlinked settings file stopped the boot")
            return
        }
        guard case .refused(let reason) = core.settings.health else {
            Issue.record("the symlink was followed: \(core.settings.health)")
            return
        }
        #expect(reason.contains("symbolic link"))
        #expect(core.engineId == "echo")
        await #expect(throws: SettingsError.self) { try await core.settings.set("engineId", .string("echo")) }
        #expect(try String(contentsOfFile: dotfile, encoding: .utf8) == original)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == dotfile)

        // The pair: the same file, as a regular file, is read.
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.copyItem(atPath: dotfile, toPath: link)
        guard
            case .ready(let healed) = await boot(
                storage: store, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("a regular settings file stopped the boot")
            return
        }
        #expect(healed.settings.health == .fine)
        #expect(healed.engineId == "remote")
    }

    @Test("a settings file keep may not read (EACCES) starts keep on the defaults, reported")
    func aRefusedSettingsFileIsUnreadable() async throws {
        let storage = FaultyStorage(MemoryStorage())
        await storage.fail([.read], errno: EACCES, only: SettingsStore.key)
        guard
            case .ready(let core) = await boot(
                storage: storage, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("a refused settings file stopped the boot")
            return
        }
        guard case .refused(let reason) = core.settings.health else {
            Issue.record("not reported: \(core.settings.health)")
            return
        }
        #expect(reason.contains("EACCES"))
    }
}
