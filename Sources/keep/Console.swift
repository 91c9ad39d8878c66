import Foundation
import KeepApp
import KeepTerminal

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
    var columns: Int? { Self.columns(of: STDOUT_FILENO) }

    /// The width of the terminal `descriptor` is, in columns (`TIOCGWINSZ`); `nil` off a
    /// terminal or when the terminal does not say (a new pseudo-terminal is 0 by 0).
    private static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// keep's own `text` word-wrapped to the width of the terminal standard output is
    /// (``TextWrap``), read now, so a resized window is followed; as it is off a terminal
    /// or when the terminal does not say its width.
    func fitted(_ text: String) -> String {
        guard let width = columns else { return text }
        return TextWrap.wrapped(text, width: width)
    }

    /// `line` (one message, `keep: …`) wrapped as ``fitted(_:)`` does, for the
    /// terminal standard error is: later lines under the message, after `keep: `.
    private static func fittedToErrors(_ line: String) -> String {
        guard let width = columns(of: STDERR_FILENO) else { return line }
        return TextWrap.wrapped(line, width: width, hang: "keep: ".count)
    }

    /// Writes `text` to standard output as it is.
    func out(_ text: String) {
        Self.writeAll(text, to: STDOUT_FILENO)
    }

    /// Writes `bytes` (whole UTF-8) to standard output as they are.
    func out(_ bytes: borrowing [UInt8]) {
        Self.writeAll(bytes[...], to: STDOUT_FILENO)
    }

    /// Writes `text` to standard error as it is.
    func err(_ text: String) {
        Self.writeAll(text, to: STDERR_FILENO)
    }

    /// Writes `text`, which holds text from outside keep (a server's, a file's), to standard
    /// output with its control characters neutralised (``TerminalText``).
    func show(_ text: String) {
        out(TerminalText.neutralised(text))
    }

    /// Writes `text` to standard error, neutralised as ``show(_:)`` does.
    func showError(_ text: String) {
        err(TerminalText.neutralised(text))
    }

    /// Writes `json` (JSON text an encoder wrote, which may quote a server or a file) to
    /// standard output with every character a terminal would obey as a `\u` escape
    /// (``TerminalText/escapedInJSON(_:)``): the same JSON to a parser, nothing raw to a terminal.
    func json(_ json: String) {
        out(TerminalText.escapedInJSON(json))
    }

    /// `text` (an id, a title, a model id, a value from outside keep) as one field of a line
    /// keep prints: neutralised, its newlines and tabs shown too, so it stays in its line.
    static func field(_ text: String) -> String {
        TerminalText.neutralised(text, oneLine: true)
    }

    /// `keep: message`, one line on standard error; the message may quote a server or a
    /// file, so its control characters are neutralised, its newlines and tabs included: a
    /// message is one line, and a quoted text cannot print a line that looks like keep's.
    /// On a terminal that says its width, the line is word-wrapped to it.
    func error(_ message: String) {
        err(Self.fittedToErrors("keep: \(Self.field(message))") + "\n")
    }

    /// Whether standard error is a terminal.
    let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// One line about the turn on standard error, dim on a terminal (unless `NO_COLOR`):
    /// what keep did on the user's behalf, such as turns left out of a request.
    func note(_ text: String) {
        let line = TerminalText.neutralised(text)
        err(errorIsTerminal && !noColor ? "\u{1B}[2m\(line)\u{1B}[0m\n" : line + "\n")
    }

    /// `keep: warning: message`, one line on standard error, neutralised and wrapped as
    /// ``error(_:)``.
    func warning(_ message: String) {
        err(Self.fittedToErrors("keep: warning: \(Self.field(message))") + "\n")
    }

    /// Everything on standard input, as text; throws a ``CommandFailure`` when it is not UTF-8.
    func readAllInput() throws(CommandFailure) -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .failure("standard input is not UTF-8 text")
        }
        return text
    }

    /// Everything on standard input, as text, when it is at most `limit` bytes; throws a
    /// ``CommandFailure`` with `tooLarge` when it is more (having read no more than one byte
    /// past the limit), when it cannot be read, and when it is not UTF-8. A closed standard
    /// input (`<&-`) is empty: there is nothing to read, which is not an error.
    func readInput(limit: Int, tooLarge: String) throws(CommandFailure) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let wanted = min(buffer.count, limit + 1 - bytes.count)
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, wanted) }
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 || errno == EBADF {
                break
            } else if errno != EINTR {
                throw .failure("cannot read standard input: \(String(cString: strerror(errno)))")
            }
        }
        guard bytes.count <= limit else { throw .failure(tooLarge) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .failure("standard input is not UTF-8 text")
        }
        return text
    }

    /// Writes every byte of `text` to `descriptor`, retrying interrupted and partial writes;
    /// gives up quietly when the reader is gone or the descriptor is unusable.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        writeAll(Array(text.utf8)[...], to: descriptor)
    }

    /// Writes every byte of `bytes` to `descriptor`, as ``writeAll(_:to:)`` does a text.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) {
        var bytes = bytes
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
