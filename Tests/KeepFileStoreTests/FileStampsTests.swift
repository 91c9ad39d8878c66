import Foundation
import KeepConformance
import KeepPorts
import Testing

@testable import KeepFileStore

@Suite("The stamps of a namespace's files")
struct FileStampsTests {
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
        for (id, size) in sizes {
            let one = FileStamps.read(root: directory.path, StorageKey(.chats, id))
            #expect(stamps[id] == one && one?.size == size, "\(id)")
        }
    }

    @Test("a namespace never written has no stamps, and a name that is not a file says what it is")
    func missingAndIrregular() async throws {
        let directory = try TemporaryDirectory()
        #expect(try await FileStamps.read(root: directory.path, .chats).isEmpty)
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "real"), "{}")
        let namespace = directory.path + "/store/chats"
        #expect(symlink(namespace + "/real", namespace + "/planted") == 0)
        let stamps = try await FileStamps.read(root: directory.path, .chats)
        #expect(stamps["real"]?.isRegularFile == true)
        #expect(stamps["planted"]?.irregularity == "it is a symbolic link, not a file")
    }

    @Test("a symbolic link planted at the namespace's directory is refused, never followed")
    func plantedDirectoryLink() async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        let other = try FileStore(root: elsewhere.path)
        try await other.write(StorageKey(.chats, "theirs"), "{}")
        #expect(mkdir(directory.path + "/store", 0o700) == 0)
        #expect(symlink(elsewhere.path + "/store/chats", directory.path + "/store/chats") == 0)
        await #expect(throws: StorageError.self) { try await FileStamps.read(root: directory.path, .chats) }
    }
}
