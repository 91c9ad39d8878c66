import Foundation

extension Process {
    /// Waits until the process has exited, and answers how: its exit status, or 128 plus the
    /// number of the signal that ended it, as a shell says.
    ///
    /// The wait is `waitid` on the process itself, leaving it to be reaped (`WNOWAIT`), so
    /// Foundation's own bookkeeping goes on as before; not `waitUntilExit()`, which waits for
    /// Foundation to hear `SIGCHLD`, and a full run once hung there for good. When Foundation
    /// has reaped it already (`ECHILD`), its own account is the answer.
    package func waitForExit() -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else {
                waitUntilExit()
                return terminationReason == .exit ? terminationStatus : 128 + terminationStatus
            }
        }
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? status : 128 + status
    }
}
