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

    @Test("a directory on the way to the data root that another user may change is refused; root's and sticky are not")
    func ancestorRefusals() {
        let me = Ownership.user
        let foreign = Ownership.ancestorRefusal("/srv", status(owner: Self.other, permissions: 0o755), user: me)
        #expect(foreign?.code == .unavailable && foreign?.path == "/srv", "\(String(describing: foreign))")
        #expect(foreign?.description.contains("belongs to user \(Self.other)") == true)
        let open = Ownership.ancestorRefusal("/srv", status(owner: me, permissions: 0o777), user: me)
        #expect(open?.description.contains("could move the data root away") == true, "\(String(describing: open))")
        #expect(Ownership.ancestorRefusal("/srv", status(owner: 0, permissions: 0o775), user: me) != nil)
        // The pair: root's, one's own, and a sticky shared directory (as /tmp) are fine.
        #expect(Ownership.ancestorRefusal("/", status(owner: 0, permissions: 0o755), user: me) == nil)
        #expect(Ownership.ancestorRefusal("/home/me", status(owner: me, permissions: 0o700), user: me) == nil)
        #expect(Ownership.ancestorRefusal("/tmp", status(owner: 0, permissions: 0o1777), user: me) == nil)
    }

    @Test(
        "a store under a directory others may write does not open, even before its root is made; made sticky, it opens"
    )
    func storeUnderAnOpenDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "keep-owner")
        let shared = directory.appending("shared")
        try #require(mkdir(shared, 0o700) == 0)
        let root = shared + "/keep"
        try await FileStore(root: root).write(StorageKey(.chats, "c"), "kept")
        #expect(chmod(shared, 0o777) == 0)
        do {
            _ = try FileStore(root: root)
            Issue.record("a store under a directory anyone may write opened")
        } catch {
            #expect(error.code == .unavailable && error.path == shared, "\(error)")
            #expect(error.description.contains("could move the data root away"), "\(error)")
        }
        // Not made yet, deeper down: the first directory that exists on the way is checked.
        #expect(throws: StorageError.self) { try FileStore(root: shared + "/not/yet/keep") }
        #expect(chmod(shared, 0o1777) == 0)
        #expect(try await FileStore(root: root).read(StorageKey(.chats, "c")) == "kept", "sticky: nothing lost")
        // Another user's directory on the way, even one only they may write, is refused too.
        try #require(chown(shared, uid_t(Self.other), gid_t(Self.other)) == 0, "the tests run as root")
        #expect(chmod(shared, 0o755) == 0)
        #expect(throws: StorageError.self) { try FileStore(root: root) }
        #expect(chown(shared, geteuid(), getegid()) == 0)
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
