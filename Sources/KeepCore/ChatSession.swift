import Foundation

/// One open conversation: it joins a question to its answer and stores the pair as one
/// write, so a relaunch finds every completed turn and never half of one.
///
/// The flow of a turn: ``begin(question:)`` keeps the question as the chat's draft (the
/// chat itself is not touched, so an answer still streaming is never stored);
/// ``recordTurn(question:answer:engine:model:server:usage:system:serverName:attachments:role:)`` then records both
/// messages in one write (``ChatRepository/record(_:in:)``: one append to a chat in format
/// 3, whatever its length; a new or older chat written whole, once) and clears the draft.
/// If the answer never comes (the app is killed, the engine fails) the question stays as
/// the draft and ``draft()`` offers it again.
///
/// ``chat`` changes only after its write succeeded, so what the session shows is always
/// what the next launch reads. Turns are recorded one at a time.
public actor ChatSession {
    /// The conversation as stored, and how its file is written.
    public private(set) var stored: StoredChat
    private let repository: ChatRepository
    private let now: @Sendable () -> Date
    private let turns = TurnLock()

    /// The conversation as stored.
    public var chat: Chat { stored.chat }

    /// A session on `chat`, not stored yet: it is stored whole with its first completed turn
    /// (over whatever is stored under its id).
    public init(chat: Chat, repository: ChatRepository, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(stored: StoredChat(new: chat), repository: repository, now: now)
    }

    /// A session on a chat as ``ChatRepository/stored(_:)`` read it: its turns are appended
    /// when its file is in format 3.
    public init(stored: StoredChat, repository: ChatRepository, now: @escaping @Sendable () -> Date = { Date() }) {
        self.stored = stored
        self.repository = repository
        self.now = now
    }

    /// A session on a new chat with a fresh id; nothing is stored until its first turn.
    public static func start(
        repository: ChatRepository, now: @escaping @Sendable () -> Date = { Date() }
    )
        async throws(ChatError) -> ChatSession
    {
        let id = try await repository.newId()
        return ChatSession(
            chat: Chat(id: id, created: ChatFormat.normalized(now())), repository: repository, now: now)
    }

    /// A session on the stored chat `id`, or on a new chat of that id when only its draft is
    /// stored (its first answer never came); `nil` when there is neither. Throws
    /// ``ChatError/unreadable(_:)`` for a chat that cannot be read.
    public static func open(
        _ id: String, repository: ChatRepository, now: @escaping @Sendable () -> Date = { Date() }
    )
        async throws(ChatError) -> ChatSession?
    {
        if let stored = try await repository.stored(id) {
            return ChatSession(stored: stored, repository: repository, now: now)
        }
        guard try await repository.draft(for: id) != nil else { return nil }
        return ChatSession(chat: Chat(id: id, created: ChatFormat.normalized(now())), repository: repository, now: now)
    }

    /// The chat's id.
    public var id: String { chat.id }

    /// Whether the chat is stored in the current format, so that a turn is one append to its
    /// file whatever was appended since this session read it (``StoredChat/isAppendable``);
    /// `false` for a chat not stored yet (a new chat's draft) or one in an older format.
    public var appends: Bool { stored.isAppendable }

    /// The question of a turn whose answer never came, to offer again; `nil` when none.
    public func draft() async throws(ChatError) -> String? {
        try await repository.draft(for: chat.id)
    }

    /// Keeps `question` as the draft while its answer is produced. The chat is not
    /// written: an in-flight turn is never stored.
    public func begin(question: String) async throws(ChatError) {
        try await repository.saveDraft(question, for: chat.id)
    }

    /// Stores `question` and its `answer` from the engine `engine` in one write, then
    /// clears the draft, and answers where they landed.
    ///
    /// Throws ``ChatError/storage(_:)`` when the write fails, and ``ChatError/removed(_:)``
    /// when the chat was removed meanwhile (nothing is written); the session's chat is then
    /// unchanged and the draft stays. A draft that cannot be cleared after the write is
    /// harmless (it would only be offered again) and does not fail the recorded turn.
    ///
    /// The answer's `model`, `server` and `usage` are kept on it when given; a `system`
    /// prompt, when given, becomes the chat's own (``Chat/system``) in the same write.
    public func recordTurn(
        question: String, answer: String, engine: String, model: String? = nil, server: String? = nil,
        usage: TokenUsage? = nil, system: String? = nil, serverName: String? = nil, attachments: [Attachment] = [],
        role: String? = nil
    ) async throws(ChatError) -> RecordedTurn {
        try await turns.run { () async throws(ChatError) in
            try await self.write(
                ChatTurn(
                    question: question, answer: answer, time: self.now(), engine: engine, model: model,
                    server: server, usage: usage, system: system, serverName: serverName, role: role,
                    attachments: attachments))
        }
    }

    private func write(_ turn: ChatTurn) async throws(ChatError) -> RecordedTurn {
        let recorded = RecordedTurn(questionIndex: chat.messages.count, answerIndex: chat.messages.count + 1)
        stored = try await repository.record(turn, in: stored)
        // The turn is stored; a failure to forget its draft only means it is offered again.
        try? await repository.clearDraft(for: stored.chat.id)
        return recorded
    }

    /// A one-line title from the first question: its first line, cut at 60 characters.
    static func title(from question: String) -> String {
        ChatEvent.title(from: question)
    }
}
