import KeepApp
import KeepConversation
import KeepPorts
import Synchronization

/// Standard input's lines, each read when the chat asks for one, on a thread of its own,
/// so the chat can wait for a line without holding a thread of the shared pool.
///
/// On a terminal (standard input and output both) the line editor reads: libedit, with
/// keep's keys, history and bracketed paste (``LibEditLineEditor``); the terminal is in
/// its editing state only while a line is being read, so Ctrl-C while an answer streams is
/// still a signal. Elsewhere (a pipe, a file, or a platform without libedit) each line is
/// read as it is, without a prompt of its own. The history of lines typed is kept in
/// ``QuestionHistory`` when one is given (in the store): read once at the start and handed
/// to libedit, added to after each line.
final class LineInput: Sendable {
    /// What one read gave.
    enum Event: Equatable, Sendable {
        case line(String)
        /// Ctrl-C at the prompt: the line was thrown away.
        case interrupted
        case end
    }

    /// Where reads and history writes happen, one at a time: a thread of its own
    /// (`DedicatedThread`), as libedit is not thread-safe and a read waits for a person.
    private let thread = DedicatedThread(name: "keep.line-input")
    private let reader: Reader
    private let console: Console
    /// Where typed lines are kept; `nil` when there is none, or once it failed.
    private let history: Mutex<QuestionHistory?>

    /// Reads standard input; edits lines when `editing` and libedit can be set up. `history`
    /// is where lines are kept, `nil` when the user turned it off.
    init(editing: Bool, history: QuestionHistory?, console: Console) async {
        self.console = console
        var entries: [String] = []
        var keeping = history
        if editing, let history {
            do {
                entries = try await history.load()
            } catch {
                console.warning("\(error); this chat keeps no history")
                keeping = nil
            }
        }
        reader = Reader(editing: editing, history: entries)
        self.history = Mutex(reader.isEditing ? keeping : nil)
    }

    /// Whether lines are read by the line editor (which shows the prompt itself).
    var isEditing: Bool { reader.isEditing }

    /// The next line, after `prompt` when the line editor shows one.
    func next(prompt: String) async -> Event {
        let reader = reader
        return await thread.run { reader.read(prompt: prompt) }
    }

    /// Makes `line` one that Up and Ctrl-R find, now and (with a history) after a relaunch;
    /// a history that cannot take it is said once and left alone for the rest of the chat.
    func remember(_ line: String) async {
        let reader = reader
        await thread.run { reader.remember(line) }
        guard let keeping = history.withLock({ $0 }) else { return }
        do {
            try await keeping.append(line)
        } catch {
            history.withLock { $0 = nil }
            console.warning("\(error); the rest of this chat's lines are not kept")
        }
    }

    deinit {
        thread.stop()
    }

    /// The state only the input's thread touches.
    private final class Reader: @unchecked Sendable {
        #if canImport(CLibEdit)
            private let editor: LibEditLineEditor?
        #endif
        init(editing: Bool, history: [String]) {
            #if canImport(CLibEdit)
                editor = editing ? LibEditLineEditor(history: history, capacity: QuestionHistory.capacity) : nil
            #endif
        }

        var isEditing: Bool {
            #if canImport(CLibEdit)
                editor != nil
            #else
                false
            #endif
        }

        func read(prompt: String) -> Event {
            #if canImport(CLibEdit)
                if let editor {
                    switch editor.readLine(prompt: prompt) {
                    case .text(let line): return .line(line)
                    case .interrupted: return .interrupted
                    case .end: return .end
                    }
                }
            #endif
            return Swift.readLine(strippingNewline: true).map(Event.line) ?? .end
        }

        /// Adds `line` to the editor's history.
        func remember(_ line: String) {
            #if canImport(CLibEdit)
                editor?.add(line)
            #endif
        }
    }
}
