import KeepFileStore
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``FileSystemCalls`` that passes every call on to `base` unless it says otherwise: the
/// shape of a test's wrapper that changes one call (holds a flush, breaks a step of the
/// write path) and leaves the others as they are.
package protocol ForwardingFileSystemCalls: FileSystemCalls {
    /// Where the calls this wrapper does not change go.
    var base: any FileSystemCalls { get }
}

extension ForwardingFileSystemCalls {
    package func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
        try base.create(path, mode: mode)
    }
    package func open(_ path: String) throws(StorageError) -> OpenFile { try base.open(path) }
    package func tryLock(_ file: OpenFile) throws(StorageError) -> Bool { try base.tryLock(file) }
    package func linkCount(_ file: OpenFile) throws(StorageError) -> Int { try base.linkCount(file) }
    package func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) { try base.write(file, bytes) }
    package func flush(_ file: OpenFile) throws(StorageError) { try base.flush(file) }
    package func close(_ file: OpenFile) throws(StorageError) { try base.close(file) }
    package func rename(_ from: String, to: String) throws(StorageError) { try base.rename(from, to: to) }
    package func flushDirectory(_ path: String) throws(StorageError) { try base.flushDirectory(path) }
    package func unlink(_ path: String) throws(StorageError) { try base.unlink(path) }
    package func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) {
        try base.makeDirectory(path, mode: mode)
    }
    package func listDirectory(_ path: String) throws(StorageError) -> [String] { try base.listDirectory(path) }
    package func readFile(_ path: String) throws(StorageError) -> [UInt8] { try base.readFile(path) }
    package func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
        try base.openForAppending(path)
    }
    package func status(_ file: OpenFile) throws(StorageError) -> FileStatus { try base.status(file) }
    package func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        try base.read(file, count: count, at: offset)
    }
    package func truncate(_ file: OpenFile, to size: Int) throws(StorageError) { try base.truncate(file, to: size) }
    package func lock(_ file: OpenFile) throws(StorageError) { try base.lock(file) }
    package func openDirectory(_ path: String) throws(StorageError) -> OpenFile { try base.openDirectory(path) }
    package func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus {
        try base.status(of: name, in: directory)
    }
}
