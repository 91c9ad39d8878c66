import Foundation

/// A new pseudo-terminal, for driving the interactive chat as a person at a terminal would.
///
/// Linux's own calls, made directly: the Swift module leaves out `posix_openpt`,
/// `grantpt`, `unlockpt` and `ptsname_r` (they need `_XOPEN_SOURCE`), so the master is
/// opened from `/dev/ptmx` and unlocked and named with the two ioctls those functions wrap.
enum PseudoTerminal {
    /// glibc's `POSIX_SPAWN_SETSID` (a GNU extension the Swift module does not export):
    /// the child starts a new session before its file actions run.
    static let spawnSetSID: Int32 = 0x80
    /// `TIOCGPTN`, `_IOR('T', 0x30, unsigned int)`: the number of the terminal's slave side.
    private static let getNumber: UInt = 0x8004_5430
    /// `TIOCSPTLCK`, `_IOW('T', 0x31, int)`: lock or unlock the slave side.
    private static let setLock: UInt = 0x4004_5431

    /// The master side (close-on-exec, not this process's controlling terminal) and the
    /// path of the other side, for the child to open.
    static func open() throws -> (master: Int32, path: String) {
        let master = Foundation.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw SpawnFailure(what: "open /dev/ptmx", code: errno) }
        // A new slave is locked until unlocked: what unlockpt does.
        var unlocked: Int32 = 0
        guard ioctl(master, setLock, &unlocked) == 0 else {
            let code = errno
            close(master)
            throw SpawnFailure(what: "ioctl TIOCSPTLCK", code: code)
        }
        // Its name is /dev/pts/<number>: what ptsname_r does.
        var number: UInt32 = 0
        guard ioctl(master, getNumber, &number) == 0 else {
            let code = errno
            close(master)
            throw SpawnFailure(what: "ioctl TIOCGPTN", code: code)
        }
        return (master, "/dev/pts/\(number)")
    }
}
