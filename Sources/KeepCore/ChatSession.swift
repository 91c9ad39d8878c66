import Foundation

/// One open conversation: it joins a question to its answer and stores the pair as one
/// write, so a relaunch finds every completed turn and never half of one.
///
/// The flow of a turn: ``begin(question:)`` keeps the question as the chat's draft (the
/// chat itself is not touched, so an answer still streaming is never stored);
/// ``record(question:answer:engine:)`` then writes the whole chat with both messages in
/// one write and clears the draft. If the answer never comes (the app is killed, the
/// engine fails) the question stays as the draft and ``draft()`` offers it again.
///
/// ``chat`` changes only after its write succeeded, so what the session shows is always
/// what the next launch reads. Turns are recorded one at a time.
public actor ChatSession {
    /// The conversation as stored.
    public private(set) var chat: Chat
    private let repository: ChatRepository
    private let now: @Sendable () -> Date
    private let turns = TurnLock()

    /// A session on `chat`, which may not be stored yet (a new chat is stored with its
    /// first completed turn).
    public init(chat: Chat, repository: ChatRepository, now: @escaping @Sendable () -> Date = { Date() }) {
        self.chat = chat
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
        if let chat = try await repository.read(id) {
            return ChatSession(chat: chat, repository: repository, now: now)
        }
        guard try await repository.draft(for: id) != nil else { return nil }
        return ChatSession(chat: Chat(id: id, created: ChatFormat.normalized(now())), repository: repository, now: now)
    }

    /// The chat's id.
    public var id: String { chat.id }

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
    /// Throws ``ChatError/storage(_:)`` when the write fails; the session's chat is then
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
        let reply = ChatMessage(
            role: .assistant, text: answer, time: Date(), model: model, server: server, usage: usage,
            serverName: serverName)
        let asked = ChatMessage(role: .user, text: question, time: Date(), attachments: attachments)
        return try await turns.run { () async throws(ChatError) in
            try await self.write(asked: asked, reply: reply, engine: engine, system: system, role: role)
        }
    }

    /// ``recordTurn(question:answer:engine:model:server:usage:system:serverName:attachments:role:)``, answering `nil`
    /// instead of throwing when the write failed: the indices come from whatever did the
    /// write, or not at all.
    @discardableResult
    public func record(question: String, answer: String, engine: String) async -> RecordedTurn? {
        try? await recordTurn(question: question, answer: answer, engine: engine)
    }

    private func write(
        asked: ChatMessage, reply: ChatMessage, engine: String, system: String?, role: String?
    ) async throws(ChatError) -> RecordedTurn {
        let time = ChatFormat.normalized(now())
        var next = chat
        let turn = RecordedTurn(questionIndex: next.messages.count, answerIndex: next.messages.count + 1)
        next.messages.append(ChatMessage(role: .user, text: asked.text, time: time, attachments: asked.attachments))
        next.messages.append(
            ChatMessage(
                role: .assistant, text: reply.text, time: time, model: reply.model, server: reply.server,
                usage: reply.usage, serverName: reply.serverName))
        if let role { next.role = role }
        next.updated = time
        next.engine = engine
        if let system { next.system = system }
        if next.title.isEmpty { next.title = Self.title(from: asked.text) }
        try await repository.save(next)
        chat = next
        // The turn is stored; a failure to forget its draft only means it is offered again.
        try? await repository.clearDraft(for: next.id)
        return turn
    }

    /// A one-line title from the first question: its first line, cut at 60 characters.
    static func title(from question: String) -> String {
        let line = question.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 60 else { return trimmed.isEmpty ? "untitled" : trimmed }
        return String(trimmed.prefix(59)) + "…"
    }
}
