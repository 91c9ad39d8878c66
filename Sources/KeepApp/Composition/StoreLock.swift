import Foundation
import KeepFileStore
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock shared by every `keep` process on one data root: `flock` on
/// `<root>/store.lock`.
///
/// The store makes each write atomic, but a change that reads a value, alters it and
/// writes it back (a turn appended to a chat, a new chat id claimed, a setting changed)
/// can lose another process's change made in between. Such changes hold this lock from
/// the read to the write, so they take turns; nothing slow (an engine's answer) is done
/// while it is held.
///
/// The lock belongs to the open file, so the kernel releases it when the holder exits,
/// even by `kill -9`: a dead process never leaves the store locked. The file holds no data
/// and is never removed (removing a lock file others wait on would let two holders in).
public struct StoreLock: Sendable {
    /// The lock file.
    public let path: String
    private let root: String

    /// The lock of the store under `root`; touches nothing until ``acquire()``.
    public init(root: String) {
        self.root = root
        path = root.hasSuffix("/") ? root + "store.lock" : root + "/store.lock"
    }

    /// Waits until no other holder has the lock, then holds it until
    /// ``Held/release()`` (or until the value is gone).
    ///
    /// Creates the data root (0700, with ``DataRoot/makeDirectory(_:)``) and the lock file
    /// (0600) when missing. Throws a ``StorageError`` naming the call, the path and the
    /// errno when either cannot be made, is a symbolic link, or the lock cannot be taken.
    public func acquire() async throws(StorageError) -> Held {
        // Made durably, through the file store's seam; a symlinked root is refused.
        try DataRoot.makeDirectory(root)
        // O_CLOEXEC: an engine or a child process must not inherit, and so hold, the lock.
        // O_NOFOLLOW: a symbolic link planted at the lock's name is refused, never followed.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        let held = Held(descriptor: descriptor)
        // Free (the usual case): taken at once, without waiting.
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return held }
        let busy = errno
        guard busy == EWOULDBLOCK || busy == EINTR else { throw .system("flock", path: path, errno: busy) }
        // Held by another turn: wait for it on a thread of our own, so the wait holds up
        // no thread of a shared pool (a pool of blocked waiters could not run the holder).
        let path = path
        let waited: Result<Void, StorageError> = await withCheckedContinuation { done in
            Thread {
                while flock(descriptor, LOCK_EX) != 0 {
                    let failure = errno
                    if failure == EINTR { continue }  // a signal woke the wait; the lock is still wanted
                    done.resume(returning: .failure(.system("flock", path: path, errno: failure)))
                    return
                }
                done.resume(returning: .success(()))
            }.start()
        }
        try waited.get()
        return held
    }

    /// The lock, held until ``release()`` is called or the value is released.
    public final class Held: Sendable {
        /// The open lock file; `nil` once released, so it is closed exactly once.
        private let descriptor: Mutex<Int32?>

        fileprivate init(descriptor: Int32) {
            self.descriptor = Mutex(descriptor)
        }

        /// Lets the next holder in. Closing the file is what releases the lock; a failed
        /// close releases it all the same, so there is nothing to report.
        public func release() {
            if let open = descriptor.withLock({ $0.take() }) { close(open) }
        }

        deinit {
            release()
        }
    }
}
