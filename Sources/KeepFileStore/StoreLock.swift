import KeepPorts

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
package struct StoreLock: Sendable {
    /// The lock file.
    package let path: String
    private let root: String

    /// The lock of the store under `root`; touches nothing until ``acquire()``.
    package init(root: String) {
        self.root = root
        path = root.hasSuffix("/") ? root + "store.lock" : root + "/store.lock"
    }

    /// Waits until no other holder has the lock, then holds it until
    /// ``Held/release()`` (or until the value is gone).
    ///
    /// Creates the data root (0700, with `DataRoot.makeDirectory(_:)`) and the lock file
    /// (0600) when missing. Throws a `StorageError` naming the call, the path and the
    /// errno when either cannot be made, is a symbolic link, or the lock cannot be taken,
    /// and one saying what is there when the lock's name holds a FIFO, a device or a socket.
    package func acquire() async throws(StorageError) -> Held {
        // Made durably, through the file store's seam; a symlinked root is refused.
        try DataRoot.makeDirectory(root)
        // A FIFO or device planted at the lock's name is refused before it is opened.
        try FileKind.refuseUnsafe(path)
        // flock on the lock file, waited for on a thread of its own; a symbolic link
        // planted at the lock's name is refused, never followed.
        return Held(try await FileLock.acquire(path))
    }

    /// The lock, held until ``release()`` is called or the value is released.
    package final class Held: Sendable {
        private let lock: FileLock.Held

        fileprivate init(_ lock: FileLock.Held) {
            self.lock = lock
        }

        /// Lets the next holder in.
        package func release() {
            lock.release()
        }
    }
}
