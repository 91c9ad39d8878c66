import KeepTerminal

#if canImport(CLibEdit)
    internal import CLibEdit
    import KeepApp

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The chat's line editor on libedit: the keys people's fingers know, history, Ctrl-R,
    /// UTF-8 text on the terminal's own width, and a bracketed paste taken as one piece.
    ///
    /// libedit's native `el_*` API rather than its readline emulation, because keep needs
    /// what only the native one offers: its own function reading the terminal
    /// (`EL_GETCFN`), its own editor commands (`EL_ADDFN`) and key bindings (`EL_BIND`), and
    /// the terminal's modes in the editing state (`EL_SETTY`). libedit does not know
    /// bracketed paste, so keep reads the terminal itself: every byte passes through a
    /// ``TerminalKeyDecoder``, which hands libedit plain keys and the editing keys in one
    /// spelling each, swallows every other escape sequence, and takes a paste between its
    /// markers as one piece; the command `keep-paste` (bound to the start marker) then
    /// inserts that piece, newlines and all, into the line being edited. libedit reads in
    /// raw mode, one key at a time, so the kernel's line limit never applies.
    ///
    /// In the editing state the terminal sends no signals (`setty -d -isig`): Ctrl-C clears
    /// the line (``Line/interrupted``) and Ctrl-Z stops keep with the terminal put back,
    /// both as editor commands; while an answer streams the terminal is as it was, so
    /// Ctrl-C is a signal again. libedit's own signal handling (`EL_SIGNAL`) puts the
    /// terminal back when keep is stopped or killed at the prompt, and follows a resize.
    ///
    /// Used from one thread at a time (``LineInput``'s own).
    final class LibEditLineEditor {
        /// What one read of a line gave.
        enum Line: Equatable {
            case text(String)
            /// Ctrl-C: the line was thrown away.
            case interrupted
            /// Ctrl-D on an empty line, or the end of the input.
            case end
        }

        private let editLine: OpaquePointer
        private let history: OpaquePointer
        private var historyEvent = HistEventW()
        private var prompt: UnsafeMutablePointer<wchar_t>
        private var decoder = TerminalKeyDecoder()
        /// Keys decoded but not yet handed to libedit.
        private var pending: [wchar_t] = []
        private var pendingIndex = 0
        private var pastes: [String] = []
        private var interrupted = false
        /// The names and help of keep's commands, which libedit points to.
        private var commandNames: [UnsafeMutablePointer<wchar_t>] = []

        /// The key sequence handed to libedit for each editing key, and the libedit command
        /// it is bound to: the one table of what the editing keys do.
        private static let editingKeys: [TerminalKeyDecoder.EditingKey: (sequence: String, command: String)] = [
            .up: ("\u{1B}[A", "ed-prev-history"),
            .down: ("\u{1B}[B", "ed-next-history"),
            .right: ("\u{1B}[C", "ed-next-char"),
            .left: ("\u{1B}[D", "ed-prev-char"),
            .home: ("\u{1B}[H", "ed-move-to-beg"),
            .end: ("\u{1B}[F", "ed-move-to-end"),
            .delete: ("\u{1B}[3~", "ed-delete-next-char"),
            .wordLeft: ("\u{1B}[1;5D", "ed-prev-word"),
            .wordRight: ("\u{1B}[1;5C", "em-next-word"),
        ]
        /// What keep hands libedit when a paste has arrived (bound to `keep-paste`).
        private static let pasteSequence = "\u{1B}[200~"
        private static let bracketedPasteOn = "\u{1B}[?2004h"
        private static let bracketedPasteOff = "\u{1B}[?2004l"

        /// An editor on standard input and output, with `entries` (oldest first) as its
        /// history; `nil` when libedit cannot be set up as keep needs it.
        init?(history entries: [String], capacity: Int) {
            Self.useUTF8()
            guard let editLine = keep_el_init("keep") else { return nil }
            guard let history = history_winit() else {
                el_end(editLine)
                return nil
            }
            self.editLine = editLine
            self.history = history
            prompt = Self.wide("")
            guard keep_history_set_size(history, &historyEvent, Int32(capacity)) == 0,
                keep_history_set_unique(history, &historyEvent, 1) == 0,
                keep_el_set_client_data(editLine, Unmanaged.passUnretained(self).toOpaque()) == 0,
                Self.withWide("emacs", { keep_el_set_string(editLine, EL_EDITOR, $0) }) == 0,
                keep_el_set_int(editLine, EL_SIGNAL, 1) == 0,
                keep_el_set_history(editLine, history) == 0,
                keep_el_set_prompt(editLine, { LibEditLineEditor.owner(of: $0)?.prompt }) == 0,
                keep_el_set_getc(
                    editLine,
                    { editLine, character in
                        guard let owner = LibEditLineEditor.owner(of: editLine), let character else { return -1 }
                        return owner.nextCharacter(character)
                    }) == 0,
                Self.withWide("-d", { set in Self.withWide("-isig", { keep_el_setty(editLine, set, $0) }) }) == 0,
                addCommand(
                    "keep-interrupt", help: "Throw the line away", key: "^C",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.interrupt() ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-suspend", help: "Suspend keep", key: "^Z",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.suspend() ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-paste", help: "Insert what was pasted", key: Self.pasteSequence,
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.insertPaste() ?? UInt8(CC_ERROR) }),
                Self.bindings.allSatisfy({ bind($0.keys, to: $0.command) })
            else { return nil }
            for entry in entries { add(entry) }
            // The terminal marks pastes only while asked to (xterm's mode 2004): from now
            // until the editor is done (a paste typed ahead while an answer streams is
            // marked too, and decoded when the editor reads it).
            Console().out(Self.bracketedPasteOn)
        }

        /// The keys bound beyond the editing keys and keep's own commands.
        private static var bindings: [(keys: String, command: String)] {
            editingKeys.values.map { ($0.sequence, $0.command) } + [
                ("^R", "em-inc-search-prev"), ("^S", "em-inc-search-next"), ("^W", "ed-delete-prev-word"),
                ("^U", "em-kill-line"),
            ]
        }

        deinit {
            Console().out(Self.bracketedPasteOff)
            el_end(editLine)
            history_wend(history)
            prompt.deallocate()
            commandNames.forEach { $0.deallocate() }
        }

        /// One line read after `prompt`, edited as the user likes; its text without the
        /// final newline.
        func readLine(prompt text: String) -> Line {
            prompt.deallocate()
            prompt = Self.wide(text)
            interrupted = false
            var count: Int32 = 0
            let line = el_wgets(editLine, &count)
            if interrupted {
                return .interrupted
            }
            guard let line, count > 0 else { return .end }
            var scalars = String.UnicodeScalarView()
            for index in 0..<Int(count) {
                scalars.append(Unicode.Scalar(UInt32(bitPattern: line[index])) ?? "\u{FFFD}")
            }
            var result = String(scalars)
            if result.hasSuffix("\n") { result.removeLast() }
            return .text(result)
        }

        /// Makes `line` the newest entry Up and Ctrl-R find.
        func add(_ line: String) {
            Self.withWide(line) { _ = keep_history_enter(history, &historyEvent, $0) }
        }

        // MARK: - Reading the terminal

        /// libedit's `EL_GETCFN`: the next character, decoded from the terminal's bytes.
        /// 1 with a character, 0 at the end of input, -1 on a read error.
        private func nextCharacter(_ character: UnsafeMutablePointer<wchar_t>) -> Int32 {
            while pendingIndex == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return count == 0 ? 0 : -1 }
                for key in decoder.feed(buffer[0..<count]) { queue(key) }
            }
            character.pointee = pending[pendingIndex]
            pendingIndex += 1
            return 1
        }

        private func queue(_ key: TerminalKeyDecoder.TerminalKey) {
            switch key {
            case .character(let scalar):
                pending.append(wchar_t(bitPattern: scalar.value))
            case .meta(let scalar):
                pending += [0x1B, wchar_t(bitPattern: scalar.value)]
            case .special(let key):
                guard let sequence = Self.editingKeys[key]?.sequence else { return }
                pending += sequence.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            case .paste(let text):
                pastes.append(text)
                pending += Self.pasteSequence.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            }
        }

        // MARK: - keep's editor commands

        /// Ctrl-C: ends the read as Enter would, marked as thrown away.
        private func interrupt() -> UInt8 {
            interrupted = true
            Self.withWide("\n") { el_wpush(editLine, $0) }
            return UInt8(CC_NORM)
        }

        /// Ctrl-Z: the terminal as it was, keep stopped (`SIGSTOP`, which stops it even
        /// where a terminal's own Ctrl-Z would be ignored); when it is continued (`fg`),
        /// back to editing the same line.
        private func suspend() -> UInt8 {
            keep_el_set_int(editLine, EL_PREP_TERM, 0)
            Console().out(Self.bracketedPasteOff)
            raise(SIGSTOP)  // this thread's own signal: it stops before going on
            Console().out(Self.bracketedPasteOn)
            keep_el_set_int(editLine, EL_PREP_TERM, 1)
            return UInt8(CC_REDISPLAY)
        }

        /// The paste that arrived, inserted at the cursor as it is.
        private func insertPaste() -> UInt8 {
            guard !pastes.isEmpty else { return UInt8(CC_NORM) }
            let inserted = Self.withWide(pastes.removeFirst()) { el_winsertstr(editLine, $0) }
            return inserted == 0 ? UInt8(CC_REFRESH) : UInt8(CC_REFRESH_BEEP)
        }

        // MARK: - Helpers

        /// Adds keep's editor command `name` and binds `key` to it; whether both worked.
        /// libedit keeps the name and help it is given (it does not copy them), so they
        /// live as long as the editor.
        private func addCommand(_ name: String, help: String, key: String, _ command: keep_el_command_t) -> Bool {
            let wideName = Self.wide(name)
            let wideHelp = Self.wide(help)
            commandNames += [wideName, wideHelp]
            return keep_el_add_function(editLine, wideName, wideHelp, command) == 0 && bind(key, to: name)
        }

        private func bind(_ keys: String, to command: String) -> Bool {
            Self.withWide(keys) { wideKeys in Self.withWide(command) { keep_el_bind(editLine, wideKeys, $0) } } == 0
        }

        private static func withWide<Result>(
            _ text: String, _ body: (UnsafeMutablePointer<wchar_t>) -> Result
        ) -> Result {
            let pointer = wide(text)
            defer { pointer.deallocate() }
            return body(pointer)
        }

        private static func owner(of editLine: OpaquePointer?) -> LibEditLineEditor? {
            var data: UnsafeMutableRawPointer?
            guard let editLine, keep_el_get_client_data(editLine, &data) == 0, let data else { return nil }
            return Unmanaged<LibEditLineEditor>.fromOpaque(data).takeUnretainedValue()
        }

        /// `text` as a NUL-terminated wide string the caller deallocates.
        private static func wide(_ text: String) -> UnsafeMutablePointer<wchar_t> {
            let scalars = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
            let pointer = UnsafeMutablePointer<wchar_t>.allocate(capacity: scalars.count)
            pointer.initialize(from: scalars, count: scalars.count)
            return pointer
        }

        /// libedit measures and prints characters through the C library's locale: UTF-8
        /// always, whatever the environment names, because keep's text is UTF-8.
        private static func useUTF8() {
            if setlocale(LC_CTYPE, "") != nil, let codeset = nl_langinfo(Int32(CODESET)),
                String(cString: codeset) == "UTF-8"
            {
                return
            }
            setlocale(LC_CTYPE, "C.UTF-8")
        }
    }
#endif
