import Foundation
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
    /// Editing is by grapheme cluster where keep's own commands do it: Left, Right (and Ctrl-B,
    /// Ctrl-F), Backspace and Delete move over or delete a whole character as a person sees
    /// it (`e` with a combining accent, a flag, an emoji with its modifiers), never half of
    /// one. A combining mark typed is composed with the character before it where Unicode
    /// has a composed form (`keep-combine`), because libedit cannot show a mark on its own:
    /// it lays one out as a character of no width, which the next character overwrites on
    /// the screen. What libedit cannot do: show a mark with no composed form (or one pasted
    /// in decomposed) where it belongs, and end its own word moves and Ctrl-W at a
    /// character's edge (they count code points).
    ///
    /// Ctrl-R is keep's own search of the lines typed: the prompt says it is a search and
    /// what is searched for (`(history search: word) `), the line shows the newest line
    /// typed that holds it; Ctrl-R again finds an older one, Ctrl-S a newer one, Backspace
    /// shortens the search, Enter asks the line found, Escape or Ctrl-G leaves the search
    /// with the line as it was, and any other editing key leaves it with the line found, to
    /// edit. Escape alone is known by nothing following it within a tenth of a second.
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
        /// Keys decoded but not yet handed to libedit, and the characters libedit is being
        /// handed for the key before them.
        private var keys: [TerminalKeyDecoder.TerminalKey] = []
        private var keyIndex = 0
        private var pending: [wchar_t] = []
        private var pendingIndex = 0
        private var pastes: [String] = []
        /// The lines typed, oldest first, as Ctrl-R searches them.
        private var entries: [String] = []
        /// The history search under way, if one is.
        private var search: Search?
        /// Its prompt, while it shows.
        private var searchPrompt: UnsafeMutablePointer<wchar_t>?
        private var interrupted = false
        /// The names and help of keep's commands, which libedit points to.
        private var commandNames: [UnsafeMutablePointer<wchar_t>] = []

        /// The key sequence handed to libedit for each editing key, and the libedit command
        /// it is bound to: the one table of what the editing keys do.
        private static let editingKeys: [TerminalKeyDecoder.EditingKey: (sequence: String, command: String)] = [
            .up: ("\u{1B}[A", "ed-prev-history"),
            .down: ("\u{1B}[B", "ed-next-history"),
            .right: ("\u{1B}[C", "keep-next-character"),
            .left: ("\u{1B}[D", "keep-previous-character"),
            .home: ("\u{1B}[H", "ed-move-to-beg"),
            .end: ("\u{1B}[F", "ed-move-to-end"),
            .delete: ("\u{1B}[3~", "keep-delete-next-character"),
            .wordLeft: ("\u{1B}[1;5D", "ed-prev-word"),
            .wordRight: ("\u{1B}[1;5C", "em-next-word"),
        ]
        /// What keep hands libedit when a paste has arrived (bound to `keep-paste`).
        private static let pasteSequence = "\u{1B}[200~"
        /// What keep hands libedit for each key typed during a history search (bound to
        /// `keep-search-key`): a control sequence of keep's own, which the decoder never
        /// hands on (it swallows every sequence it does not know). A sequence, not a
        /// character: libedit inserts every character past U+00FF, whatever it is bound to.
        private static let searchKeySequence = "\u{1B}[9001~"
        /// What keep hands libedit for a combining mark typed (bound to `keep-combine`).
        private static let combineKeySequence = "\u{1B}[9002~"
        /// How long a lone Escape waits for the rest of a sequence, in milliseconds.
        private static let escapeWait: Int32 = 100
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
                keep_el_set_prompt(editLine, { LibEditLineEditor.owner(of: $0)?.shownPrompt }) == 0,
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
                addCommand(
                    "keep-previous-character", help: "Move back one character", key: "^B",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.moveByCharacter(-1) ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-next-character", help: "Move on one character", key: "^F",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.moveByCharacter(1) ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-delete-previous-character", help: "Delete the character before the cursor", key: "^H",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.deleteCharacter(-1) ?? UInt8(CC_ERROR) }),
                bind("^?", to: "keep-delete-previous-character"),
                addCommand(
                    "keep-delete-next-character", help: "Delete the character under the cursor",
                    key: Self.editingKeys[.delete]?.sequence ?? "",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.deleteCharacter(1) ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-combine", help: "Join a combining mark to the character before it",
                    key: Self.combineKeySequence,
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.combine() ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-search", help: "Search the lines typed", key: "^R",
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.startSearch() ?? UInt8(CC_ERROR) }),
                addCommand(
                    "keep-search-key", help: "A key typed while searching",
                    key: Self.searchKeySequence,
                    { editLine, _ in LibEditLineEditor.owner(of: editLine)?.searchKey() ?? UInt8(CC_ERROR) }),
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
                ("^W", "ed-delete-prev-word"), ("^U", "em-kill-line"),
            ]
        }

        deinit {
            Console().out(Self.bracketedPasteOff)
            el_end(editLine)
            history_wend(history)
            prompt.deallocate()
            searchPrompt?.deallocate()
            commandNames.forEach { $0.deallocate() }
        }

        /// One line read after `prompt`, edited as the user likes; its text without the
        /// final newline.
        func readLine(prompt text: String) -> Line {
            prompt.deallocate()
            prompt = Self.wide(text)
            interrupted = false
            search = nil
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
            if entries.last != line { entries.append(line) }
        }

        // MARK: - Reading the terminal

        /// libedit's `EL_GETCFN`: the next character, decoded from the terminal's bytes.
        /// 1 with a character, 0 at the end of input, -1 on a read error.
        private func nextCharacter(_ character: UnsafeMutablePointer<wchar_t>) -> Int32 {
            while pendingIndex == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                guard let key = nextKey() else { return decoderEnded ? 0 : -1 }
                // Decided as each key is handed on, not as it is read: a key typed after
                // Ctrl-R (in the same burst) goes to the search, the others to libedit.
                if search != nil {
                    searchKeys.append(key)
                    pending = Self.wideCharacters(Self.searchKeySequence)
                } else if case .character(let scalar) = key, Self.isCombiningMark(scalar) {
                    marks.append(scalar)
                    pending = Self.wideCharacters(Self.combineKeySequence)
                } else {
                    pending = characters(for: key)
                }
            }
            character.pointee = pending[pendingIndex]
            pendingIndex += 1
            return 1
        }

        /// Whether the input ended (rather than failed) when ``nextKey()`` answered `nil`.
        private var decoderEnded = false
        /// The keys typed during a search, each handed to `keep-search-key` in turn.
        private var searchKeys: [TerminalKeyDecoder.TerminalKey] = []
        /// The combining marks typed, each handed to `keep-combine` in turn.
        private var marks: [Unicode.Scalar] = []

        /// The next key typed, read from the terminal when none is waiting; `nil` at the end
        /// of the input or on a read error. An Escape that nothing follows within
        /// ``escapeWait`` is the Escape key.
        private func nextKey() -> TerminalKeyDecoder.TerminalKey? {
            while keyIndex == keys.count {
                keys.removeAll(keepingCapacity: true)
                keyIndex = 0
                if decoder.awaitsEscape {
                    var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    let polled = poll(&ready, 1, Self.escapeWait)
                    if polled < 0 && errno == EINTR { continue }
                    if polled == 0 {
                        keys = decoder.endOfInput()
                        continue
                    }
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    decoderEnded = count == 0
                    return nil
                }
                keys = decoder.feed(buffer[0..<count])
            }
            defer { keyIndex += 1 }
            return keys[keyIndex]
        }

        /// What libedit is handed for `key`: its character, or the one spelling of an
        /// editing key keep binds; nothing for a key keep does not use (Escape alone).
        private func characters(for key: TerminalKeyDecoder.TerminalKey) -> [wchar_t] {
            switch key {
            case .character(let scalar):
                return [wchar_t(bitPattern: scalar.value)]
            case .meta(let scalar):
                return [0x1B, wchar_t(bitPattern: scalar.value)]
            case .special(let key):
                return Self.editingKeys[key].map { Self.wideCharacters($0.sequence) } ?? []
            case .paste(let text):
                pastes.append(text)
                return Self.wideCharacters(Self.pasteSequence)
            case .escape:
                return []
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

        // MARK: - Grapheme clusters

        /// The line being edited, as code points, and the cursor's place among them.
        private func lineNow() -> (text: [wchar_t], cursor: Int) {
            guard let info = el_wline(editLine) else { return ([], 0) }
            let count = info.pointee.lastchar - info.pointee.buffer
            let text = (0..<count).map { info.pointee.buffer[$0] }
            return (text, info.pointee.cursor - info.pointee.buffer)
        }

        /// The offsets (in code points) where the characters of `text` start, and its end.
        private static func boundaries(_ text: [wchar_t]) -> [Int] {
            var scalars = String.UnicodeScalarView()
            for code in text { scalars.append(Unicode.Scalar(UInt32(bitPattern: code)) ?? "\u{FFFD}") }
            var offsets = [0]
            for character in String(scalars) {
                offsets.append(offsets[offsets.count - 1] + character.unicodeScalars.count)
            }
            return offsets
        }

        /// How many code points away the character boundary `direction` (-1 back, 1 on) of
        /// the cursor is; 0 at the line's edge.
        private func characterStep(_ direction: Int) -> Int {
            let (text, cursor) = lineNow()
            let offsets = Self.boundaries(text)
            if direction < 0 { return cursor - (offsets.last(where: { $0 < cursor }) ?? cursor) }
            return (offsets.first(where: { $0 > cursor }) ?? cursor) - cursor
        }

        /// Left and Right: the cursor over one whole character.
        private func moveByCharacter(_ direction: Int) -> UInt8 {
            let step = characterStep(direction)
            guard step > 0 else { return UInt8(CC_ERROR) }
            _ = el_cursor(editLine, Int32(direction * step))
            return UInt8(CC_CURSOR)
        }

        /// Backspace and Delete: one whole character removed, before or under the cursor.
        private func deleteCharacter(_ direction: Int) -> UInt8 {
            let step = characterStep(direction)
            guard step > 0 else { return UInt8(CC_ERROR) }
            if direction > 0 { _ = el_cursor(editLine, Int32(step)) }
            el_deletestr(editLine, Int32(step))
            return UInt8(CC_REFRESH)
        }

        /// Whether `scalar` joins the character before it (a combining accent, an enclosing mark).
        private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .spacingMark: true
            default: false
            }
        }

        /// A combining mark typed: joined to the character before the cursor, composed into
        /// one code point where Unicode has one (NFC: `e` and U+0301 become `é`), because
        /// libedit lays a mark out as a character of no width that the next one overwrites
        /// on the screen. A mark with no composed form is inserted as it is.
        private func combine() -> UInt8 {
            guard !marks.isEmpty else { return UInt8(CC_NORM) }
            let mark = marks.removeFirst()
            let step = characterStep(-1)
            let (text, cursor) = lineNow()
            var joined = String.UnicodeScalarView()
            for code in text[(cursor - step)..<cursor] {
                joined.append(Unicode.Scalar(UInt32(bitPattern: code)) ?? "\u{FFFD}")
            }
            joined.append(mark)
            let composed = String(joined).precomposedStringWithCanonicalMapping
            if step > 0, composed.unicodeScalars.count <= step {
                el_deletestr(editLine, Int32(step))
                _ = Self.withWide(composed) { el_winsertstr(editLine, $0) }
            } else {
                _ = Self.withWide(String(mark)) { el_winsertstr(editLine, $0) }
            }
            return UInt8(CC_REFRESH)
        }

        // MARK: - Searching the lines typed

        /// A history search: what is searched for, the line found, and the line as it was.
        private struct Search {
            var query = ""
            /// The index in ``entries`` of the line found, if one is.
            var found: Int?
            let original: String
            let cursor: Int
        }

        /// Ctrl-R: a search starts, its prompt in place of the chat's.
        private func startSearch() -> UInt8 {
            let (text, cursor) = lineNow()
            search = Search(original: Self.string(text), cursor: cursor)
            showSearch()
            return UInt8(CC_REDISPLAY)
        }

        /// A key typed during a search (see the type's contract).
        private func searchKey() -> UInt8 {
            guard var current = search, !searchKeys.isEmpty else { return UInt8(CC_NORM) }
            let key = searchKeys.removeFirst()
            switch key {
            case .character("\u{12}"), .character("\u{13}"):
                let older = key == .character("\u{12}")
                current.found =
                    find(current.query, from: current.found.map { older ? $0 - 1 : $0 + 1 }, older: older)
                    ?? current.found
            case .character("\u{08}"), .character("\u{7F}"):
                current.query = String(current.query.dropLast())
                current.found = find(current.query, from: nil, older: true)
            case .character("\r"), .character("\n"):
                endSearch(keeping: true)
                Self.withWide("\n") { el_wpush(editLine, $0) }
                return UInt8(CC_REDISPLAY)
            case .escape, .character("\u{07}"):
                endSearch(keeping: false)
                return UInt8(CC_REDISPLAY)
            case .character("\u{03}"):
                endSearch(keeping: false)
                return interrupt()
            case .character(let scalar) where scalar.value >= 0x20:
                current.query.unicodeScalars.append(scalar)
                current.found = find(current.query, from: current.found, older: true)
            case .paste(let text):
                current.query += text.prefix(while: { !$0.isNewline })
                current.found = find(current.query, from: current.found, older: true)
            default:
                // Any other key edits the line found: the search ends, and the key is
                // handed to libedit as it would have been.
                endSearch(keeping: true)
                let characters = characters(for: key)
                if !characters.isEmpty { Self.withWide(Self.string(characters)) { el_wpush(editLine, $0) } }
                return UInt8(CC_REDISPLAY)
            }
            search = current
            showSearch()
            return UInt8(CC_REDISPLAY)
        }

        /// The newest line typed at or before `start` (or at or after it, when not `older`)
        /// that holds `query`, ignoring case; from the newest when `start` is `nil`.
        private func find(_ query: String, from start: Int?, older: Bool) -> Int? {
            guard !query.isEmpty else { return nil }
            let wanted = query.lowercased()
            let indices: [Int] =
                older
                ? Array(stride(from: min(start ?? entries.count - 1, entries.count - 1), through: 0, by: -1))
                : Array(max(start ?? 0, 0)..<entries.count)
            return indices.first { entries[$0].lowercased().contains(wanted) }
        }

        /// The search's prompt, and the line it found (or the line as it was) to be shown.
        private func showSearch() {
            guard let current = search else { return }
            let missing = !current.query.isEmpty && current.found == nil
            setSearchPrompt("(history search\(missing ? ", none found" : ""): \(current.query)) ")
            replaceLine(with: current.found.map { entries[$0] } ?? current.original)
        }

        /// The search over: the chat's prompt back, and the line found kept or the line as
        /// it was put back, its cursor where it was.
        private func endSearch(keeping: Bool) {
            guard let current = search else { return }
            search = nil
            setSearchPrompt(nil)
            if keeping, let found = current.found {
                replaceLine(with: entries[found])
            } else {
                replaceLine(with: current.original)
                _ = el_cursor(editLine, Int32(current.cursor - current.original.unicodeScalars.count))
            }
        }

        private func setSearchPrompt(_ text: String?) {
            searchPrompt?.deallocate()
            searchPrompt = text.map(Self.wide)
        }

        /// The prompt libedit shows now: the search's while one is under way.
        private var shownPrompt: UnsafeMutablePointer<wchar_t>? { searchPrompt ?? prompt }

        /// The line being edited replaced by `text`, the cursor at its end.
        private func replaceLine(with text: String) {
            let (old, _) = lineNow()
            _ = el_cursor(editLine, Int32(old.count))
            el_deletestr(editLine, Int32(old.count))
            if !text.isEmpty { _ = Self.withWide(text) { el_winsertstr(editLine, $0) } }
        }

        private static func string(_ characters: [wchar_t]) -> String {
            var scalars = String.UnicodeScalarView()
            for code in characters { scalars.append(Unicode.Scalar(UInt32(bitPattern: code)) ?? "\u{FFFD}") }
            return String(scalars)
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

        /// `text`'s code points, as libedit is handed them.
        private static func wideCharacters(_ text: String) -> [wchar_t] {
            text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
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
