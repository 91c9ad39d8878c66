import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input, output and error as `keep` uses them.
///
/// Output goes straight to `write(2)`, unbuffered, so a streamed answer shows piece by
/// piece and a process killed mid-answer has printed everything it received. A reader
/// that went away (`keep ask … | head -1`) stops the printing, never the command: the
/// turn is still recorded (`SIGPIPE` is ignored, so `EPIPE` comes back as an error).
struct Console: Sendable {
    /// Whether standard input is a terminal (a person typing) rather than a pipe or file.
    let inputIsTerminal = isatty(STDIN_FILENO) == 1
    /// Whether standard output is a terminal (a person reading) rather than a pipe or file.
    let outputIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Whether the user asked for output without colour or styles (`NO_COLOR`, not empty).
    let noColor: Bool

    init(noColor: Bool = false) {
        self.noColor = noColor
    }

    /// The width of the terminal standard output is, in columns; `nil` off a terminal or
    /// when the terminal does not say.
    var columns: Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes `text` to standard output as it is.
    func out(_ text: String) {
        Self.writeAll(text, to: STDOUT_FILENO)
    }

    /// Writes `text` to standard error as it is.
    func err(_ text: String) {
        Self.writeAll(text, to: STDERR_FILENO)
    }

    /// `keep: message`, one line on standard error.
    func error(_ message: String) {
        err("keep: \(message)\n")
    }

    /// `keep: warning: message`, one line on standard error.
    func warning(_ message: String) {
        err("keep: warning: \(message)\n")
    }

    /// Everything on standard input, as text; throws a ``CommandFailure`` when it is not UTF-8.
    func readAllInput() throws(CommandFailure) -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .failure("standard input is not UTF-8 text")
        }
        return text
    }

    /// Writes every byte of `text` to `descriptor`, retrying interrupted and partial writes;
    /// gives up quietly when the reader is gone or the descriptor is unusable.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN {
                // A non-blocking descriptor that is full: wait until it takes more.
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            } else {
                return  // EPIPE, EBADF, …: nobody to print to
            }
        }
    }
}
