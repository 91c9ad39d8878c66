import Foundation
import KeepConformance
import KeepPorts
import Testing

@testable import KeepFileStore

#if canImport(Glibc)
    import Glibc
#endif

/// The data root is yours: the store's directories and a value's file are used only when
/// they belong to the user keep runs as and no one else may change them.
@Suite("The data root is yours")
struct OwnershipTests {
    /// A user id that is not keep's (the tests run as root, who may give a file away).
    static let other: UInt32 = 65534

    private func status(owner: UInt32, permissions: UInt32, directory: Bool = true) -> FileStatus {
        FileStatus(
            kind: directory ? .directory : .regular, size: 0, modified: 0, inode: 0, linkCount: 1, owner: owner,
            permissions: permissions)
    }

    @Test("another user's directory, or one group or others may write, is refused by name; one's own 0700 is not")
    func refusals() {
        let me = Ownership.user
        let foreign = Ownership.refusal("/d", status(owner: Self.other, permissions: 0o700), user: me)
        #expect(foreign?.code == .unavailable && foreign?.path == "/d", "\(String(describing: foreign))")
        #expect(foreign?.description.contains("belongs to user \(Self.other)") == true)
        let open = Ownership.refusal("/d", status(owner: me, permissions: 0o770), user: me)
        #expect(open?.description.contains("group or others may change it (mode 770)") == true)
        #expect(Ownership.refusal("/d", status(owner: me, permissions: 0o757), user: me) != nil, "others' write bit")
        // The pair: one's own, readable by others but writable by none of them, is fine.
        #expect(Ownership.refusal("/d", status(owner: me, permissions: 0o700), user: me) == nil)
        #expect(Ownership.refusal("/d", status(owner: me, permissions: 0o755), user: me) == nil)
        // A file is that file's problem, as a symbolic link at its name is.
        let file = Ownership.refusal("/f", status(owner: Self.other, permissions: 0o600, directory: false), user: me)
        #expect(file?.code == .corrupt)
    }

    @Test("a store whose root, store or namespace directory is not yours does not open; made yours, it opens as it was")
    func storeRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "keep-owner")
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c"), "kept")
        for place in [directory.path, directory.appending("store"), directory.appending("store/chats")] {
            try #require(chown(place, uid_t(Self.other), gid_t(Self.other)) == 0, "the tests run as root")
            #expect(throws: StorageError.self, "\(place) another user's") { try FileStore(root: directory.path) }
            do {
                _ = try FileStore(root: directory.path)
            } catch {
                #expect(error.code == .unavailable && error.path == place, "\(error)")
            }
            #expect(chown(place, geteuid(), getegid()) == 0)
            #expect(chmod(place, 0o777) == 0)
            #expect(throws: StorageError.self, "\(place) writable by others") { try FileStore(root: directory.path) }
            #expect(chmod(place, 0o700) == 0)
            // Nothing was lost meanwhile.
            #expect(try await FileStore(root: directory.path).read(StorageKey(.chats, "c")) == "kept")
        }
    }

    @Test("a value's file another user owns is that value's problem, checked on the descriptor it is read through")
    func valueRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "keep-owner")
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c"), "kept")
        try await store.write(StorageKey(.chats, "d"), "also kept")
        let file = directory.appending("store/chats/c")
        try #require(chown(file, uid_t(Self.other), gid_t(Self.other)) == 0, "the tests run as root")
        await #expect(throws: StorageError.self) { try await store.read(StorageKey(.chats, "c")) }
        do {
            _ = try await store.read(StorageKey(.chats, "c"))
        } catch {
            #expect(error.code == .corrupt && error.path == file, "\(error)")
        }
        #expect(try await store.read(StorageKey(.chats, "d")) == "also kept", "the others read")
        #expect(chown(file, geteuid(), getegid()) == 0)
        #expect(try await store.read(StorageKey(.chats, "c")) == "kept")
    }

    @Test("a file keep opens outside the store (kept data's, the lock) is refused when another user owns it")
    func outsideFileRefused() throws {
        let directory = try TemporaryDirectory(prefix: "keep-owner")
        let path = directory.appending("kept.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        try FileKind.refuseUnsafe(path)  // the pair: one's own file passes
        try #require(chown(path, uid_t(Self.other), gid_t(Self.other)) == 0, "the tests run as root")
        #expect(throws: StorageError.self) { try FileKind.refuseUnsafe(path) }
        #expect(chown(path, geteuid(), getegid()) == 0)
        #expect(chmod(path, 0o666) == 0)
        #expect(throws: StorageError.self, "writable by others") { try FileKind.refuseUnsafe(path) }
    }
}
