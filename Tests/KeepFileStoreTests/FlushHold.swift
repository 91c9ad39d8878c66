import Dispatch
import KeepFileStore
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls passed straight on, except the first directory flush: it is made on the disk,
/// and then held under way (the call does not return) until ``release()``. Writes that
/// rename meanwhile renamed after that flush began, which is what a group commit must
/// never cover with it.
final class FlushHold: FileSystemCalls {
    let base: any FileSystemCalls
    private let held = Atomic<Bool>(false)
    private let gate = DispatchSemaphore(value: 0)

    init(base: any FileSystemCalls) {
        self.base = base
    }

    /// Whether the first directory flush has been made and is being held.
    var holding: Bool { held.load(ordering: .acquiring) }

    /// Lets the held flush return (or the first one, when it comes, pass).
    func release() { gate.signal() }

    func flushDirectory(_ path: String) throws(StorageError) {
        try base.flushDirectory(path)
        if held.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            gate.wait()
        }
    }

    func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile { try base.create(path, mode: mode) }
    func open(_ path: String) throws(StorageError) -> OpenFile { try base.open(path) }
    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool { try base.tryLock(file) }
    func linkCount(_ file: OpenFile) throws(StorageError) -> Int { try base.linkCount(file) }
    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) { try base.write(file, bytes) }
    func flush(_ file: OpenFile) throws(StorageError) { try base.flush(file) }
    func close(_ file: OpenFile) throws(StorageError) { try base.close(file) }
    func rename(_ from: String, to: String) throws(StorageError) { try base.rename(from, to: to) }
    func unlink(_ path: String) throws(StorageError) { try base.unlink(path) }
    func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) { try base.makeDirectory(path, mode: mode) }
    func listDirectory(_ path: String) throws(StorageError) -> [String] { try base.listDirectory(path) }
    func readFile(_ path: String) throws(StorageError) -> [UInt8] { try base.readFile(path) }
}

/// A ``DirectoryFlushing`` that says how many writers wait on it, so a test knows when a
/// batch has formed behind a flush under way.
protocol CountingFlushing: DirectoryFlushing {
    /// How many writers wait for a flush of `directory`.
    func waiting(in directory: String) -> Int
}

extension GroupCommit: CountingFlushing {}
