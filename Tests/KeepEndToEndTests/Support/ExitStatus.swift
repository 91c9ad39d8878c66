/// How a child process ended.
enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// The status `waitpid` reported (the `WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` macros, which
    /// Swift does not import).
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }

    var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}
