import Dispatch
import KeepFileStore
import KeepFileStoreTesting
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
final class FlushHold: ForwardingFileSystemCalls {
    let base: any FileSystemCalls
    private let held = Atomic<Bool>(false)
    private let gate = DispatchSemaphore(value: 0)
    private let inLock = Atomic<Int>(0)

    init(base: any FileSystemCalls) {
        self.base = base
    }

    /// Whether the first directory flush has been made and is being held.
    var holding: Bool { held.load(ordering: .acquiring) }

    /// How many calls wait for a value's lock right now: an append (or a write) of the value
    /// whose file the held writer has locked waits there, not for a flush, until
    /// ``release()``.
    var waitingForLocks: Int { inLock.load(ordering: .acquiring) }

    func lock(_ file: OpenFile) throws(StorageError) {
        inLock.add(1, ordering: .acquiringAndReleasing)
        defer { inLock.subtract(1, ordering: .acquiringAndReleasing) }
        try base.lock(file)
    }

    /// Lets the held flush return (or the first one, when it comes, pass).
    func release() { gate.signal() }

    func flushDirectory(_ path: String) throws(StorageError) {
        try base.flushDirectory(path)
        if held.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            gate.wait()
        }
    }
}

/// A ``DirectoryFlushing`` that says how many writers wait on it, so a test knows when a
/// batch has formed behind a flush under way.
protocol CountingFlushing: DirectoryFlushing {
    /// How many writers wait for a flush of `directory`.
    func waiting(in directory: String) -> Int
}

extension GroupCommit: CountingFlushing {}
