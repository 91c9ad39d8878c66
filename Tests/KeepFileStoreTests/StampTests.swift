import Foundation
import KeepConformance
import KeepFileStoreTesting
import KeepPorts
import Testing

@testable import KeepFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's stamps (the `StampedStorage` port), and the compatibility shim the chat
/// index uses until it asks the port.
@Suite("The stamps of a namespace's files")
struct StampTests {
    @Test(
        "each value's stamp is its own file's, on one thread or split between several",
        arguments: [(3, 4), (2 * FileStamps.splitAbove + 7, 1), (3 * FileStamps.splitAbove + 7, 3)])
    func eachStampIsItsFile(count: Int, threads: Int) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        var sizes: [String: Int64] = [:]
        for index in 0..<count {
            // Every third id is escaped on disk: the stamps are by id, not by file name.
            let id = index % 3 == 0 ? "Chat \(index)" : "chat-\(index)"
            try await store.write(StorageKey(.chats, id), String(repeating: "x", count: index % 17))
            sizes[id] = Int64(index % 17)
        }
        let stamps = try await FileStamps.read(root: directory.path, .chats, threads: threads)
        #expect(stamps.count == count)
        #expect(try await store.stamps(.chats) == stamps, "the port and the shim disagree")
        for (id, size) in sizes {
            let one = try await store.stamp(StorageKey(.chats, id))
            #expect(stamps[id] == one && one?.size == size && one?.isTrusted == true, "\(id)")
            #expect(FileStamps.read(root: directory.path, StorageKey(.chats, id)) == one)
        }
    }

    @Test("a write changes a stamp's inode, an append its size and time, and a read nothing")
    func whatChangesAStamp() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let key = StorageKey(.chats, "c1")
        #expect(try await store.stamp(key) == nil)
        try await store.write(key, "one\n")
        let written = try #require(try await store.stamp(key))
        _ = try await store.read(key)
        #expect(try await store.stamp(key) == written)
        try await store.write(key, "one\n")
        let rewritten = try #require(try await store.stamp(key))
        #expect(rewritten.size == written.size && rewritten.inode != written.inode)
        #expect(try await store.append(key) { _ in "two" })
        let appended = try #require(try await store.stamp(key))
        #expect(appended.size == 8 && appended.inode == rewritten.inode && appended.modified >= rewritten.modified)
        try await store.remove(key)
        #expect(try await store.stamp(key) == nil)
    }

    @Test("a namespace never written has no stamps, and a name that is not a file says what it is")
    func missingAndIrregular() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        #expect(try await store.stamps(.chats).isEmpty)
        #expect(try await store.stamp(StorageKey(.chats, "real")) == nil)
        try await store.write(StorageKey(.chats, "real"), "{}")
        let namespace = directory.path + "/store/chats"
        #expect(symlink(namespace + "/real", namespace + "/planted") == 0)
        #expect(mkdir(namespace + "/folder", 0o700) == 0)
        let stamps = try await store.stamps(.chats)
        #expect(stamps["real"]?.isTrusted == true)
        #expect(stamps["planted"]?.problem == "it is a symbolic link, not a file")
        #expect(stamps["folder"]?.problem == "it is a directory, not a file")
        #expect(
            try await store.stamp(StorageKey(.chats, "planted"))?.irregularity == "it is a symbolic link, not a file")
    }

    @Test("a symbolic link planted at the namespace's directory is refused, never followed")
    func plantedDirectoryLink() async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        let other = try FileStore(root: elsewhere.path)
        try await other.write(StorageKey(.chats, "theirs"), "{}")
        let store = try FileStore(root: directory.path)
        #expect(mkdir(directory.path + "/store", 0o700) == 0)
        #expect(symlink(elsewhere.path + "/store/chats", directory.path + "/store/chats") == 0)
        await #expect(throws: StorageError.self) { try await store.stamps(.chats) }
        await #expect(throws: StorageError.self) { try await FileStamps.read(root: directory.path, .chats) }
    }

    @Test("an EIO on one name's stat is that key's problem, its stamp says why, and the others are stamped")
    func anEIOOnOneStatIsThatKeysProblem() async throws {
        let directory = try TemporaryDirectory()
        let namespace = directory.appending("store/chats")
        let failing = Flag()
        let recorder = RecordingFileSystem { call in
            failing.isSet && call == .statusOfName(namespace + "/c2") ? .fail(EIO) : nil
        }
        let store = try FileStore(root: directory.path, calls: recorder)
        for id in ["c1", "c2", "c3"] { try await store.write(StorageKey(.chats, id), "value of \(id)\n") }
        // The positive first: without the fault every stamp is trusted.
        #expect(try await store.stamps(.chats).values.allSatisfy(\.isTrusted))

        failing.set()
        let stamps = try await store.stamps(.chats)
        #expect(Set(stamps.keys) == ["c1", "c2", "c3"])
        #expect(stamps["c1"]?.isTrusted == true && stamps["c3"]?.isTrusted == true)
        let problem = try #require(stamps["c2"]?.problem)
        #expect(problem.contains("EIO") && problem.contains(namespace + "/c2"), "\(problem)")
        #expect(try await store.stamp(StorageKey(.chats, "c2"))?.problem == problem)
    }

    @Test("the stamps go through the seam: the recorder sees every stat, and a namespace it cannot list fails")
    func theStampsGoThroughTheSeam() async throws {
        let directory = try TemporaryDirectory()
        let namespace = directory.appending("store/chats")
        let refusing = Flag()
        let recorder = RecordingFileSystem { call in
            refusing.isSet && call == .listDirectory(namespace) ? .fail(EACCES) : nil
        }
        let store = try FileStore(root: directory.path, calls: recorder)
        for id in ["a", "B"] { try await store.write(StorageKey(.chats, id), "v") }
        recorder.reset()
        _ = try await store.stamps(.chats)
        let calls = recorder.calls
        // The stats in the listing's order, whatever it is.
        #expect(calls.count == 5 && calls.first == .listDirectory(namespace) && calls.last == .close(namespace))
        #expect(calls.dropFirst().first == .openDirectory(namespace))
        #expect(
            Set(calls.dropFirst(2).dropLast()) == [.statusOfName(namespace + "/a"), .statusOfName(namespace + "/~42")])
        refusing.set()
        let error = await #expect(throws: StorageError.self) { try await store.stamps(.chats) }
        #expect(error?.code == .unavailable && error?.errno == EACCES)
    }

    @Test("the simulated disk sees the stamp calls, and its stamps follow its writes and appends")
    func theSimulatedDiskSeesTheStamps() async throws {
        let disk = SimulatedDisk()
        let store = try FileStore(root: PowerCut.root, calls: disk)
        let key = StorageKey(.chats, "c1")
        try await store.write(key, "one\n")
        let written = try #require(try await store.stamp(key))
        #expect(
            disk.records.contains {
                $0.call == FileSystemCall.statusOfName(PowerCut.root + "/store/chats/c1").description
            })
        #expect(try await store.append(key) { _ in "two" })
        let appended = try #require(try await store.stamp(key))
        #expect(
            appended.size == 8 && appended.changeToken == written.changeToken && appended.modified > written.modified)
        try await store.write(key, "new\n")
        #expect(try await store.stamps(.chats)[key.id]?.changeToken != written.changeToken)
    }
}
