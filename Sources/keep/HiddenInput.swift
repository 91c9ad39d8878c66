import Dispatch
import KeepApp
import KeepPorts
import KeepTerminal
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line read from the terminal without showing it, for an API key.
///
/// For the read the terminal neither echoes nor edits nor sends signals (termios without
/// `ECHO`, `ICANON`, `ISIG`, `IEXTEN`): keep reads every key itself, on a thread of its own.
/// Backspace and Ctrl-U edit what was typed; escape sequences (arrows, function keys) are
/// dropped, never taken into the key; Enter ends the line; Ctrl-D on an empty line is the
/// end of input. The terminal's settings are put back however the read ends.
///
/// Job control never shows or half-stores a key. Ctrl-Z (a key here, or `SIGTSTP` sent
/// from outside) puts the terminal back as it was, throws away what was typed of the key
/// and stops keep (`SIGSTOP`, so it stops even where the shell's own Ctrl-Z would be
/// ignored); when keep is continued (`fg`, `SIGCONT`), echo is turned off again, anything
/// typed meanwhile is discarded (`TCSAFLUSH`), and the prompt asks for the key again from
/// the start. Continued after a stop keep did not make itself (`SIGSTOP` from outside), it
/// does the same if it finds its terminal changed back. Ctrl-C (a key, or
/// `SIGINT`) ends the read with nothing stored.
enum HiddenInput {
    /// The line typed after `prompt` (shown on standard error), without its newline;
    /// `nil` at end of input. Throws when the terminal's settings cannot be changed, and
    /// then reads nothing (a key is never read with echo on), and on Ctrl-C.
    static func readLine(prompt: String, console: Console) async throws(CommandFailure) -> String? {
        // A read that waits for a person: a thread of its own for its length.
        try await DedicatedThread.run(name: "keep.hidden-input") { () throws(CommandFailure) -> String? in
            try HiddenRead(prompt: prompt, console: console).run()
        }
    }
}

/// One hidden read: the terminal's settings, the signals that interrupt it, the key so far.
private final class HiddenRead {
    private let prompt: String
    private let console: Console
    private var original = termios()
    private var typed: [Unicode.Scalar] = []
    private var decoder = TerminalKeyDecoder()
    /// Signals delivered as ordinary events: their numbers, and a pipe that wakes the read.
    private let arrived = Inbox()
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var sources: [any DispatchSourceSignal] = []
    private static let handled = [SIGTSTP, SIGCONT, SIGINT]

    init(prompt: String, console: Console) {
        self.prompt = prompt
        self.console = console
    }

    deinit {
        sources.forEach { $0.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    func run() throws(CommandFailure) -> String? {
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw .failure("cannot read the terminal's settings (\(Self.reason())); nothing was read")
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw .failure("cannot make a pipe for the key's read (\(Self.reason())); nothing was read")
        }
        wake = (ends[0], ends[1])
        // Neither end outlives keep in a child, and neither ever blocks the read.
        for end in ends {
            guard fcntl(end, F_SETFD, FD_CLOEXEC) == 0, fcntl(end, F_SETFL, O_NONBLOCK) == 0 else {
                throw .failure("cannot set up a pipe for the key's read (\(Self.reason())); nothing was read")
            }
        }
        try hide()
        defer { restore() }
        listen()
        console.err(prompt)
        while true {
            var ready = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&ready, 2, -1) >= 0 || errno == EINTR else {
                throw .failure("cannot wait for the key (\(Self.reason())); nothing was stored")
            }
            if ready[1].revents != 0 {
                try handleSignals()
                continue
            }
            guard ready[0].revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return typed.isEmpty ? nil : finished() }
            for key in decoder.feed(buffer[0..<count]) {
                if let line = try take(key) { return line }
            }
            buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
    }

    /// The line, when `key` ends it.
    private func take(_ key: TerminalKeyDecoder.TerminalKey) throws(CommandFailure) -> String?? {
        switch key {
        case .character("\r"), .character("\n"):
            return .some(finished())
        case .character("\u{03}"):
            throw interrupted()
        case .character("\u{04}"):
            return typed.isEmpty ? .some(nil) : nil
        case .character("\u{1A}"):
            try suspend()
        case .character("\u{7F}"), .character("\u{08}"):
            if !typed.isEmpty { typed.removeLast() }
        case .character("\u{15}"):
            typed.removeAll()
        case .character(let scalar) where scalar.value >= 0x20:
            typed.append(scalar)
        case .paste(let text):
            typed += text.unicodeScalars.filter { $0 != "\n" }
        case .character, .meta, .special, .escape:
            break
        }
        return nil
    }

    private func finished() -> String {
        console.err("\n")
        var line = String.UnicodeScalarView()
        line.append(contentsOf: typed)
        typed.removeAll()
        return String(line)
    }

    private func interrupted() -> CommandFailure {
        typed.removeAll()
        restore()
        console.err("\n")
        return .failure("interrupted; nothing was stored")
    }

    // MARK: - Job control

    /// Each signal delivered as an event on a queue of its own, which wakes the read;
    /// ignored as signals meanwhile, so none ends or stops keep behind the read's back.
    private func listen() {
        let queue = DispatchQueue(label: "keep.hidden-input.signals")
        let wakeEnd = wake.write
        for number in Self.handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [arrived] in
                arrived.numbers.withLock { $0.append(number) }
                var byte: UInt8 = 1
                _ = write(wakeEnd, &byte, 1)
            }
            source.resume()
            sources.append(source)
        }
        // The sources start listening on a queue of their own, a moment later: a SIGCONT of
        // keep's own (which changes nothing for a running process) that comes back proves
        // they listen before the prompt invites a Ctrl-Z.
        kill(getpid(), SIGCONT)
        var ready = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, 2000)
        var byte: UInt8 = 0
        while read(wake.read, &byte, 1) > 0 {}
        arrived.numbers.withLock { $0.removeAll() }
    }

    private func handleSignals() throws(CommandFailure) {
        var byte: UInt8 = 0
        while read(wake.read, &byte, 1) > 0 {}
        let numbers = arrived.numbers.withLock { numbers in
            defer { numbers.removeAll() }
            return numbers
        }
        for number in numbers {
            switch number {
            case SIGINT: throw interrupted()
            case SIGTSTP: try suspend()
            // Continued: after keep's own stop the read is hidden again already; after a stop
            // keep did not see coming, the terminal may have been given back its echo.
            default: if !isHidden() { try resumed() }
            }
        }
    }

    /// Ctrl-Z: the terminal as it was, the key so far thrown away, keep stopped; on
    /// continuing, the prompt again.
    private func suspend() throws(CommandFailure) {
        typed.removeAll()
        restore()
        console.err("\n")
        // raise, not kill: the signal is this thread's, so it stops before going on.
        raise(SIGSTOP)
        try resumed()
    }

    /// After a stop: echo off again, whatever was typed meanwhile discarded, and the prompt
    /// asked again from the start.
    private func resumed() throws(CommandFailure) {
        try hide()
        typed.removeAll()
        decoder = TerminalKeyDecoder()
        console.err("(what was typed of the key was thrown away; type it again)\n" + prompt)
    }

    // MARK: - The terminal

    private func hide() throws(CommandFailure) {
        var hidden = original
        hidden.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &hidden.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard Self.setTerminal(&hidden) else {
            throw .failure("cannot turn off the terminal's echo (\(Self.reason())); nothing was read")
        }
    }

    /// Whether the terminal is still as ``hide()`` set it.
    private func isHidden() -> Bool {
        var now = termios()
        guard tcgetattr(STDIN_FILENO, &now) == 0 else { return false }
        return now.c_lflag & tcflag_t(ECHO | ICANON | ISIG) == 0
    }

    private func restore() {
        _ = Self.setTerminal(&original)
    }

    /// `tcsetattr` with `TCSAFLUSH`, again when a signal interrupts it (as the signals this
    /// read handles do): an interrupted call changes nothing.
    private static func setTerminal(_ settings: inout termios) -> Bool {
        while tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }

    /// The signals that arrived and are not handled yet.
    private final class Inbox: Sendable {
        let numbers = Mutex<[Int32]>([])
    }
}
