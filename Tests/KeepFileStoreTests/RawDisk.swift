import Foundation
import KeepConformance
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk as a test sees it, without going through any store: what is there, with which
/// mode, and files planted the way another program (or a dead writer) would leave them.
enum RawDisk {
    /// Every path under `root`, relative to it, sorted; directories and files alike.
    static func tree(_ root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }

    /// The names in `directory`, sorted; empty when it does not exist.
    static func names(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// The permission bits of `path` (`0o600`), never following a symlink.
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o7777)
    }

    /// The inode and change time of `path`: equal only while nothing rewrote or replaced it.
    static func identity(_ path: String) -> [Int] {
        var status = stat()
        guard lstat(path, &status) == 0 else { return [] }
        #if canImport(Darwin)
            let changed = [Int(status.st_ctimespec.tv_sec), Int(status.st_ctimespec.tv_nsec)]
            let modified = [Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec)]
        #else
            let changed = [Int(status.st_ctim.tv_sec), Int(status.st_ctim.tv_nsec)]
            let modified = [Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)]
        #endif
        return [Int(status.st_ino)] + changed + modified
    }

    /// The bytes of the file at `path`, or nil when there is none.
    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Writes `bytes` at `path`, creating its directories, as another program would.
    static func plant(_ path: String, _ bytes: [UInt8]) throws {
        let parent = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Creates a file whose name is raw `name` bytes (which need not be UTF-8) in `directory`.
    static func plant(rawName name: [UInt8], in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        close(descriptor)
    }
}

/// A one-way switch several tasks can read: set once, seen by all.
final class Flag: Sendable {
    private let state = Mutex(false)

    func set() { state.withLock { $0 = true } }

    /// Sets the flag and says whether this call was the one that set it.
    func setFirst() -> Bool {
        state.withLock { isSet in
            defer { isSet = true }
            return !isSet
        }
    }

    var isSet: Bool { state.withLock { $0 } }
}
