import Foundation
import KeepConformance
import KeepPorts
import Testing

@testable import KeepFileStore

@Suite("The store lock")
struct StoreLockTests {
    /// Whether another open file description could take the lock right now.
    private func isFree(_ path: String) -> Bool {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    @Test("a held lock keeps everyone else out until it is released")
    func exclusive() async throws {
        let directory = try TemporaryDirectory()
        let lock = StoreLock(root: directory.appending("new/root"))
        let held = try await lock.acquire()
        #expect(FileManager.default.fileExists(atPath: lock.path), "the root and the lock file are made")
        #expect(!isFree(lock.path))
        held.release()
        #expect(isFree(lock.path), "released: the pair")
        held.release()  // a second release is harmless
        #expect(isFree(lock.path))
    }

    @Test("a lock whose holder is gone is free, even without a release")
    func droppedHolder() async throws {
        let directory = try TemporaryDirectory()
        let lock = StoreLock(root: directory.path)
        do {
            _ = try await lock.acquire()
        }
        #expect(isFree(lock.path))
    }

    @Test("a root that cannot be made is a typed error naming it")
    func unreachableRoot() async throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: directory.appending("file")))
        let lock = StoreLock(root: directory.appending("file/root"))
        await #expect {
            _ = try await lock.acquire()
        } throws: { error in
            let error = error as? StorageError
            return error?.errno == ENOTDIR && error?.path == directory.appending("file/root")
        }
    }
}

@Suite("Symbolic links at the lock's and kept data's names")
struct LockSymlinkTests {
    @Test("a lock file that is a symbolic link is refused, never followed; a real one is taken")
    func aSymlinkedLockIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let target = directory.appending("someone-elses-file")
        try Data("keep out".utf8).write(to: URL(fileURLWithPath: target))
        let lock = StoreLock(root: directory.path)
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: target)
        await #expect {
            _ = try await lock.acquire()
        } throws: { error in
            (error as? StorageError)?.errno == ELOOP
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep out")
        // The pair: the lock file as a regular file is taken.
        try FileManager.default.removeItem(atPath: lock.path)
        let held = try await lock.acquire()
        held.release()
    }
}
