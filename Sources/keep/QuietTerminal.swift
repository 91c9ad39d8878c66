#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal while an answer streams onto it: nothing typed is echoed into the answer,
/// neither keys (`ECHO` off) nor control characters (`ECHOCTL` off: no `^C`, `^Z`).
///
/// What is typed meanwhile is kept, as typed, for the next prompt, where the line editor
/// reads it (a question can be typed ahead, and Enter asks it once the answer is done):
/// the terminal reads key by key (`ICANON` off), so the kernel's line editing never sees
/// the keys, and a Ctrl-C, which stops the answer, no longer discards them (`NOFLSH`). The
/// signals stay (`ISIG`): Ctrl-C stops the answer, Ctrl-Z stops keep. ``restore()`` puts
/// back the settings found, with what was typed left waiting (`TCSANOW`, never a flush). A
/// shell gives its own settings back to a job that it sees stopped or killed.
///
/// Taken only on a terminal that is standard input and keep's foreground terminal (a
/// background keep changing it would be stopped by `SIGTTOU`), and only while the answer
/// is shown on it: `keep ask … | less` leaves the terminal to `less`.
final class QuietTerminal {
    private var saved = termios()
    private var quieted = false

    /// Quiets the terminal on standard input, when it is one keep may change now.
    init() {
        guard isatty(STDIN_FILENO) == 1, tcgetpgrp(STDIN_FILENO) == getpgrp(),
            tcgetattr(STDIN_FILENO, &saved) == 0
        else { return }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL | ECHOCTL | ICANON)
        quiet.c_lflag |= tcflag_t(NOFLSH)
        Self.setCharacter(&quiet, VMIN, 1)
        Self.setCharacter(&quiet, VTIME, 0)
        quieted = tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0
    }

    /// The terminal's settings as they were found; what was typed is left to be read.
    func restore() {
        guard quieted else { return }
        quieted = false
        while tcsetattr(STDIN_FILENO, TCSANOW, &saved) != 0 && errno == EINTR {}
    }

    deinit { restore() }

    /// Sets `c_cc[index]`, a C array Swift sees as a tuple.
    private static func setCharacter(_ settings: inout termios, _ index: Int32, _ value: cc_t) {
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            guard Int(index) < bytes.count else { return }
            bytes[Int(index)] = value
        }
    }
}
