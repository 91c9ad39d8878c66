import Foundation
import KeepPorts

/// Chat format 3: a chat as lines of JSON, so that a turn is one line appended to its file.
///
/// ```text
/// {"created":"2025-06-14T15:30:12.345Z","id":"20250614-153012-3fa9c1","version":3}
/// {"engine":"remote","question":{"text":"hello"},"reply":{"model":"qwen3","server":"http://127.0.0.1:8080/v1","serverName":"local","text":"hi","usage":{"completion":2,"prompt":9}},"role":"terse","system":"answer briefly","time":"2025-06-14T15:30:13.001Z","type":"turn"}
/// {"time":"2025-06-14T15:31:00.000Z","title":"greetings","type":"title"}
/// ```
///
/// The first line is the head: the format, the chat's id and when it began, and, for a chat
/// that was written whole (a save, an import, the conversion of an older file), the title,
/// engine, system prompt, role and time it had then. Every other line is one event
/// (``ChatEvent``), with a `type`: `message` (a message of the chat as it was written
/// whole), `turn` (a question and its answer together, with the engine, model, server and
/// its name, usage, and the system prompt and role the turn set), `title`, `system`. A
/// question's images are `attachments`, each `{"data", "name", "size", "type"}` with the
/// bytes in base64; one whose size or type does not match its bytes makes the chat
/// unreadable. Reading starts from the head and applies each
/// event in order, so title, time, engine and system prompt are derived, never stored twice.
///
/// One JSON object a line, keys sorted, no whitespace, every string escaped so no line holds
/// a newline or a NUL; `cat` shows one readable line per turn. Times are UTC, ISO 8601, to
/// the millisecond.
///
/// Reading is strict where it must be and forgiving where a crash leaves its mark: the
/// unfinished last line a crash mid-append leaves (``ValueLines``: no newline, or a NUL) is
/// ignored, as it was never acknowledged; a damaged line anywhere else makes the chat
/// unreadable, with a reason that names the line's number and never quotes it.
enum ChatLines {
    /// Format 3.
    static let version = 3

    // MARK: - Writing

    /// `chat` whole: its head, then one message line per message.
    static func text(of chat: Chat) -> String {
        var text = head(of: chat)
        text += "\n"
        for message in chat.messages {
            text += line(.message(message))
            text += "\n"
        }
        return text
    }

    /// The head line of `chat`, without its newline: the title, engine, system prompt and time
    /// only where reading the head alone would not give them.
    static func head(of chat: Chat) -> String {
        var json = JSONText()
        json.member("created", time(chat.created))
        json.member("engine", ifPresent: chat.engine)
        json.member("id", chat.id)
        json.member("role", ifPresent: chat.role)
        json.member("system", ifPresent: chat.system)
        json.member("title", ifPresent: chat.title.isEmpty ? nil : chat.title)
        json.member("updated", ifPresent: chat.updated == chat.created ? nil : time(chat.updated))
        json.member("version", version)
        return json.text
    }

    /// The line of `event`, without its newline.
    static func line(_ event: ChatEvent) -> String {
        var json = JSONText(capacity: 256)
        switch event {
        case .message(let message):
            attachments(message.attachments, &json)
            json.member("model", ifPresent: message.model)
            json.member("role", message.role.rawValue)
            json.member("server", ifPresent: message.server)
            json.member("serverName", ifPresent: message.serverName)
            json.member("text", message.text)
            json.member("time", time(message.time))
            json.member("type", "message")
            if let usage = message.usage { json.member("usage") { usageObject(usage, &$0) } }
        case .turn(let turn):
            json.member("engine", turn.engine)
            json.member("question") { question in
                attachments(turn.attachments, &question)
                question.member("text", turn.question)
            }
            json.member("reply") { reply in
                reply.member("model", ifPresent: turn.model)
                reply.member("server", ifPresent: turn.server)
                reply.member("serverName", ifPresent: turn.serverName)
                reply.member("text", turn.answer)
                if let usage = turn.usage { reply.member("usage") { usageObject(usage, &$0) } }
            }
            json.member("role", ifPresent: turn.role)
            json.member("system", ifPresent: turn.system)
            json.member("time", time(turn.time))
            json.member("type", "turn")
        case .title(let title, let at):
            json.member("time", time(at))
            json.member("title", title)
            json.member("type", "title")
        case .system(let system, let at):
            json.member("system", ifPresent: system)
            json.member("time", time(at))
            json.member("type", "system")
        }
        return json.text
    }

    /// `attachments` as the member of that name, when there are any.
    private static func attachments(_ attachments: [Attachment], _ json: inout JSONText) {
        guard !attachments.isEmpty else { return }
        json.member("attachments", objects: attachments) { attachment, object in
            object.member("data", Data(attachment.bytes).base64EncodedString())
            object.member("name", attachment.name)
            object.member("size", attachment.size)
            object.member("type", attachment.mediaType)
        }
    }

    private static func usageObject(_ usage: TokenUsage, _ json: inout JSONText) {
        json.member("completion", usage.completionTokens)
        json.member("prompt", usage.promptTokens)
    }

    private static func time(_ date: Date) -> String {
        UTCTime.text(date)
    }

    // MARK: - Reading

    /// The `version` of the first line of `bytes` (a stored chat's UTF-8) when that line is
    /// a JSON object with a whole number there; `nil` when it is not (an object of format 1
    /// or 2 spans many lines).
    static func headVersion(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let end = bytes.firstIndex(of: ValueLines.newline) ?? bytes.count
        var reader = JSONLineReader(bytes, 0..<end)
        var version: Int?
        do throws(JSONLineReader.Failure) {
            try reader.object { (member, key) throws(JSONLineReader.Failure) in
                if key == "version" { version = try member.integer("version") } else { try member.skip() }
            }
        } catch {
            return nil
        }
        return version
    }

    /// The chat `bytes` (a stored chat's UTF-8, format 3) hold without its messages, and how
    /// many it has. The
    /// messages of the lines `admits` lets through (it sees each line after the head, as
    /// stored; every line unless told) are made and heard by `message` one at a time, in
    /// order, with their indexes in the chat; the other lines are read and checked, their
    /// texts never made. A chat of any length is shown, summed up or searched while only its
    /// text is held, never its messages together, and a search's pass over a long chat
    /// decodes only the lines that may hold what it looks for. Throws as ``chat(from:)``
    /// does, at the first damaged line (after `message` heard the messages before it).
    static func chat(
        from bytes: UnsafeBufferPointer<UInt8>, admitting admits: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true },
        messages message: (_ index: Int, ChatMessage) -> Void
    ) throws(ChatFormat.Unreadable) -> (chat: Chat, messages: Int) {
        var count = 0
        var admitted = false
        let chat = try chat(
            from: bytes,
            texts: { line in
                admitted = admits(line)
                return admitted
            }
        ) { chat in
            for each in chat.messages {
                if admitted { message(count, each) }
                count += 1
            }
            chat.messages.removeAll(keepingCapacity: true)
        }
        return (chat, count)
    }

    /// The chat in `bytes` (a stored chat's UTF-8, format 3), read line by line without a
    /// copy of them, or why it cannot be read; `handOff`, when given, takes the messages out
    /// of the chat after each line. A line `texts` turns down (it sees the line) has its
    /// messages' texts checked and left empty, but for a line read while the chat has no
    /// title (the question that names it).
    static func chat(
        from bytes: UnsafeBufferPointer<UInt8>, texts: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true },
        handOff: (inout Chat) -> Void = { _ in }
    ) throws(ChatFormat.Unreadable) -> Chat {
        // Only finished lines count: an unfinished last one was never acknowledged.
        let finished = ValueLines.finishedCount(bytes)
        guard let headEnd = bytes[..<finished].firstIndex(of: ValueLines.newline) else {
            throw ChatFormat.Unreadable(reason: "line 1 (the head) is unfinished")
        }
        var chat = try head(bytes, 0..<headEnd)
        var start = headEnd + 1
        var number = 1
        while start < finished {
            number += 1
            let end = bytes[start..<finished].firstIndex(of: ValueLines.newline) ?? finished
            do throws(JSONLineReader.Failure) {
                // A turn names an untitled chat after its question: that one is made whatever `texts` says.
                let made = texts(UnsafeBufferPointer(rebasing: bytes[start..<end])) || chat.title.isEmpty
                try event(bytes, start..<end, texts: made).apply(to: &chat)
            } catch {
                throw ChatFormat.Unreadable(reason: "line \(number) is damaged: \(error.reason)")
            }
            handOff(&chat)
            start = end + 1
        }
        return chat
    }

    /// The chat as its head line says it began.
    private static func head(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) throws(ChatFormat.Unreadable)
        -> Chat
    {
        var version: Int?
        var id: String?
        var created: Date?
        var updated: Date?
        var title: String?
        var engine: String?
        var system: String?
        var role: String?
        var reader = JSONLineReader(bytes, range)
        do throws(JSONLineReader.Failure) {
            try reader.object { (member, key) throws(JSONLineReader.Failure) in
                if key == "version" {
                    version = try member.integer("version")
                } else if key == "id" {
                    id = try member.string("id")
                } else if key == "created" {
                    created = try time(&member, "created")
                } else if key == "updated" {
                    updated = try optional(&member) { (member) throws(JSONLineReader.Failure) in
                        try time(&member, "updated")
                    }
                } else if key == "title" {
                    title = try optionalString(&member, "title")
                } else if key == "engine" {
                    engine = try optionalString(&member, "engine")
                } else if key == "system" {
                    system = try optionalString(&member, "system")
                } else if key == "role" {
                    role = try optionalString(&member, "role")
                } else {
                    try member.skip()
                }
            }
            guard version == Self.version else { throw JSONLineReader.Failure(reason: "it is not a format 3 head") }
            guard let id else { throw JSONLineReader.Failure(reason: "the field id is missing") }
            guard let created else { throw JSONLineReader.Failure(reason: "the field created is missing") }
            return Chat(
                id: id, title: title ?? "", created: created, updated: updated ?? created, engine: engine,
                system: system, role: role)
        } catch {
            throw ChatFormat.Unreadable(reason: "line 1 (the head) is damaged: \(error.reason)")
        }
    }

    /// The event one line after the head records; without `texts`, with each message's text
    /// checked and left empty.
    private static func event(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, texts: Bool = true
    ) throws(JSONLineReader.Failure)
        -> ChatEvent
    {
        var type: String?
        var time: Date?
        var role: String?
        var text: String?
        var model: String?
        var server: String?
        var serverName: String?
        var attachments: [Attachment] = []
        var usage: TokenUsage?
        var engine: String?
        var question: Question?
        var reply: Reply?
        var title: String?
        var system: String?
        var reader = JSONLineReader(bytes, range)
        try reader.object { (member, key) throws(JSONLineReader.Failure) in
            if key == "type" {
                type = try member.string("type")
            } else if key == "time" {
                time = try Self.time(&member, "time")
            } else if key == "text" {
                text = try Self.text(&member, "text", making: texts)
            } else if key == "role" {
                role = try member.string("role")
            } else if key == "model" {
                model = try optionalString(&member, "model")
            } else if key == "server" {
                server = try optionalString(&member, "server")
            } else if key == "serverName" {
                serverName = try optionalString(&member, "serverName")
            } else if key == "attachments" {
                attachments = try Self.attachments(&member)
            } else if key == "usage" {
                usage = try optional(&member) { (member) throws(JSONLineReader.Failure) in try tokens(&member) }
            } else if key == "engine" {
                engine = try member.string("engine")
            } else if key == "question" {
                question = try Self.question(&member, texts: texts)
            } else if key == "reply" {
                reply = try Self.reply(&member, texts: texts)
            } else if key == "title" {
                title = try member.string("title")
            } else if key == "system" {
                system = try optionalString(&member, "system")
            } else {
                try member.skip()
            }
        }
        guard let type else { throw JSONLineReader.Failure(reason: "the field type is missing") }
        guard let time else { throw JSONLineReader.Failure(reason: "the field time is missing") }
        switch type {
        case "message":
            guard let role, let role = ChatMessage.Role(rawValue: role), role != .system else {
                throw JSONLineReader.Failure(reason: "its role is neither user nor assistant")
            }
            guard let text else { throw JSONLineReader.Failure(reason: "the field text is missing") }
            return .message(
                ChatMessage(
                    role: role, text: text, time: time, model: model, server: server, usage: usage,
                    attachments: attachments, serverName: serverName))
        case "turn":
            guard let engine else { throw JSONLineReader.Failure(reason: "the field engine is missing") }
            guard let question else { throw JSONLineReader.Failure(reason: "the field question is missing") }
            guard let reply else { throw JSONLineReader.Failure(reason: "the field reply is missing") }
            return .turn(
                ChatTurn(
                    question: question.text, answer: reply.text, time: time, engine: engine, model: reply.model,
                    server: reply.server, usage: reply.usage, system: system, serverName: reply.serverName,
                    role: role, attachments: question.attachments))
        case "title":
            guard let title else { throw JSONLineReader.Failure(reason: "the field title is missing") }
            return .title(title, time: time)
        case "system":
            return .system(system, time: time)
        default:
            throw JSONLineReader.Failure(reason: "it is an event this keep does not know")
        }
    }

    /// A turn's answer, as its `reply` object holds it.
    private struct Reply {
        var text: String
        var model: String?
        var server: String?
        var serverName: String?
        var usage: TokenUsage?
    }

    /// A turn's question, as its `question` object holds it.
    private struct Question {
        var text: String
        var attachments: [Attachment]
    }

    private static func reply(
        _ reader: inout JSONLineReader, texts: Bool
    ) throws(JSONLineReader.Failure) -> Reply {
        var reply = Reply(text: "")
        var text: String?
        try reader.nestedObject { (member, key) throws(JSONLineReader.Failure) in
            if key == "text" {
                text = try Self.text(&member, "reply.text", making: texts)
            } else if key == "model" {
                reply.model = try optionalString(&member, "reply.model")
            } else if key == "server" {
                reply.server = try optionalString(&member, "reply.server")
            } else if key == "serverName" {
                reply.serverName = try optionalString(&member, "reply.serverName")
            } else if key == "usage" {
                reply.usage = try optional(&member) { (member) throws(JSONLineReader.Failure) in try tokens(&member) }
            } else {
                try member.skip()
            }
        }
        guard let text else { throw JSONLineReader.Failure(reason: "the field reply.text is missing") }
        reply.text = text
        return reply
    }

    private static func question(
        _ reader: inout JSONLineReader, texts: Bool
    ) throws(JSONLineReader.Failure) -> Question {
        var text: String?
        var attachments: [Attachment] = []
        try reader.nestedObject { (member, key) throws(JSONLineReader.Failure) in
            if key == "text" {
                text = try Self.text(&member, "question.text", making: texts)
            } else if key == "attachments" {
                attachments = try Self.attachments(&member)
            } else {
                try member.skip()
            }
        }
        guard let text else { throw JSONLineReader.Failure(reason: "the field question.text is missing") }
        return Question(text: text, attachments: attachments)
    }

    /// The images of an `attachments` array, each checked against what it says it is.
    private static func attachments(_ reader: inout JSONLineReader) throws(JSONLineReader.Failure) -> [Attachment] {
        var attachments: [Attachment] = []
        try reader.array { (element) throws(JSONLineReader.Failure) in
            var name: String?
            var type: String?
            var size: Int?
            var data: String?
            try element.nestedObject { (member, key) throws(JSONLineReader.Failure) in
                if key == "name" {
                    name = try member.string("attachments.name")
                } else if key == "type" {
                    type = try member.string("attachments.type")
                } else if key == "size" {
                    size = try member.integer("attachments.size")
                } else if key == "data" {
                    data = try member.string("attachments.data")
                } else {
                    try member.skip()
                }
            }
            let number = attachments.count
            guard let name, let type, let size, let data else {
                throw JSONLineReader.Failure(reason: "attachment \(number) lacks a field")
            }
            guard let bytes = Data(base64Encoded: data), bytes.count == size, Attachment.imageType(of: bytes) == type
            else {
                throw JSONLineReader.Failure(reason: "attachment \(number) is not the image it says it is")
            }
            attachments.append(Attachment(name: name, mediaType: type, bytes: Array(bytes)))
        }
        return attachments
    }

    private static func tokens(_ reader: inout JSONLineReader) throws(JSONLineReader.Failure) -> TokenUsage {
        var prompt: Int?
        var completion: Int?
        try reader.nestedObject { (member, key) throws(JSONLineReader.Failure) in
            if key == "prompt" {
                prompt = try member.integer("usage.prompt")
            } else if key == "completion" {
                completion = try member.integer("usage.completion")
            } else {
                try member.skip()
            }
        }
        guard let prompt, let completion else { throw JSONLineReader.Failure(reason: "a token count is missing") }
        guard prompt >= 0, completion >= 0 else { throw JSONLineReader.Failure(reason: "a token count is negative") }
        return TokenUsage(promptTokens: prompt, completionTokens: completion)
    }

    private static func time(
        _ reader: inout JSONLineReader, _ field: StaticString
    ) throws(JSONLineReader.Failure)
        -> Date
    {
        guard let milliseconds = UTCTime.milliseconds(try reader.string(field)) else {
            throw JSONLineReader.Failure(reason: "the field \(field) is not an ISO 8601 time")
        }
        return ChatFormat.date(milliseconds: milliseconds)
    }

    /// A message's text, or, when not `making` it, the empty string once it is checked.
    private static func text(
        _ reader: inout JSONLineReader, _ field: StaticString, making: Bool
    ) throws(JSONLineReader.Failure) -> String {
        guard making else {
            try reader.checkString(field)
            return ""
        }
        return try reader.string(field)
    }

    private static func optionalString(
        _ reader: inout JSONLineReader, _ field: StaticString
    )
        throws(JSONLineReader.Failure) -> String?
    {
        reader.null() ? nil : try reader.string(field)
    }

    private static func optional<Value>(
        _ reader: inout JSONLineReader, _ read: (inout JSONLineReader) throws(JSONLineReader.Failure) -> Value
    ) throws(JSONLineReader.Failure) -> Value? {
        reader.null() ? nil : try read(&reader)
    }
}
