#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line read from the terminal without showing it, for an API key.
///
/// Echo is turned off with termios (`tcgetattr`, then `tcsetattr` without `ECHO`) only
/// for the read, and the terminal's settings are put back afterwards, also when Ctrl-C
/// ends the read: a terminal left without echo is a broken terminal.
enum HiddenInput {
    /// The line typed after `prompt` (shown on standard error), without its newline;
    /// `nil` at end of input. Throws when the terminal's settings cannot be changed, and
    /// then reads nothing: a key is never read with echo on.
    static func readLine(prompt: String, console: Console) throws(CommandFailure) -> String? {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw .failure(
                "cannot read the terminal's settings (\(String(cString: strerror(errno)))); nothing was read")
        }
        var hidden = original
        // No echo of what is typed, but the newline still shows, so the next line starts clean.
        hidden.c_lflag &= ~tcflag_t(ECHO)
        hidden.c_lflag |= tcflag_t(ECHONL)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden) == 0 else {
            throw .failure(
                "cannot turn off the terminal's echo (\(String(cString: strerror(errno)))); nothing was read")
        }
        let saved = original
        // Ctrl-C while echo is off: echo back on, then leave as Ctrl-C would have.
        let interrupts = Interrupts {
            var settings = saved
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
            console.err("\n")
            console.error("interrupted; nothing was stored")
            exit(1)
        }
        defer {
            // Echo back on before anything else is printed or read.
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            withExtendedLifetime(interrupts) {}
        }
        console.err(prompt)
        return Swift.readLine(strippingNewline: true)
    }
}
