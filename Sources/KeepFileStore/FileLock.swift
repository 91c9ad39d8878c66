import Foundation
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock across processes: `flock` on a file that holds no data.
///
/// The lock belongs to the open file, so the kernel releases it when its holder exits,
/// even by `kill -9`: a dead process never leaves it held. Two acquisitions in one
/// process exclude each other as two processes do (each opens the file anew). The file is
/// never removed (removing a lock file others wait on would let two holders in), and a
/// symbolic link planted at its path is refused, never followed.
package enum FileLock {
    /// Waits until no other holder has the lock on `path`, then holds it until
    /// ``Held/release()`` (or until the value is gone); creates the file (0600) when missing.
    ///
    /// A lock held by another is waited for on a thread of its own (`DedicatedThread`: a wait
    /// that may last without bound gets a thread for its length), so the wait holds up no
    /// thread of Swift's shared pool. Throws a ``StorageError`` naming the call, the
    /// path and the errno when the file cannot be opened (`ELOOP` for a symbolic link) or
    /// the lock cannot be taken.
    package static func acquire(_ path: String) async throws(StorageError) -> Held {
        // O_CLOEXEC: a child process must not inherit, and so hold, the lock.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        let held = Held(descriptor: descriptor)
        // Free (the usual case): taken at once, without waiting.
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return held }
        let busy = errno
        guard busy == EWOULDBLOCK || busy == EINTR else { throw .system("flock", path: path, errno: busy) }
        try await DedicatedThread.run(name: "keep.lock-wait") { () throws(StorageError) in
            while flock(descriptor, LOCK_EX) != 0 {
                let failure = errno
                if failure == EINTR { continue }  // a signal woke the wait; the lock is still wanted
                throw .system("flock", path: path, errno: failure)
            }
        }
        return held
    }

    /// The lock, held until ``release()`` is called or the value is released.
    package final class Held: Sendable {
        /// The open lock file; `nil` once released, so it is closed exactly once.
        private let descriptor: Mutex<Int32?>

        fileprivate init(descriptor: Int32) {
            self.descriptor = Mutex(descriptor)
        }

        /// Lets the next holder in. Closing the file is what releases the lock; a failed
        /// close releases it all the same, so there is nothing to report.
        package func release() {
            if let open = descriptor.withLock({ $0.take() }) { close(open) }
        }

        deinit {
            release()
        }
    }
}
