import Foundation

/// Chat formats 1 and 2: a chat as one pretty-printed JSON object, as keep wrote chats
/// before format 3 (``ChatLines``), and as `keep chats export --format json` still writes
/// them, so that any keep since format 2 can import an export.
///
/// ```json
/// {
///   "created" : "2025-06-14T15:30:12.345Z",
///   "engine" : "remote",
///   "id" : "20250614-153012-3fa9c1",
///   "messages" : [ { "role" : "user", "text" : "hello", "time" : "2025-06-14T15:30:12.345Z" },
///                  { "model" : "qwen3", "role" : "assistant", "server" : "http://127.0.0.1:8080/v1",
///                    "text" : "hi", "time" : "…", "usage" : { "completion" : 2, "prompt" : 9 } } ],
///   "system" : "answer briefly",
///   "title" : "hello",
///   "updated" : "2025-06-14T15:30:13.001Z",
///   "version" : 2
/// }
/// ```
///
/// Version 2 added `system` on the chat and `model`, `server` and `usage` on a message, all
/// optional and left out when there is nothing to say; so a version 1 file is read as it is,
/// with none of them. Later in version 2, as optional fields an older build skips: `role` on
/// the chat (the role it was asked in), `serverName` on an answer (the server's name beside
/// its address), and `attachments` on a question, each `{"name", "type", "size", "data"}`
/// with the image's bytes in base64 (a size that does not match the bytes, or a type that is
/// not an image, makes the chat unreadable). Times are UTC, ISO 8601, to the millisecond. Reading checks
/// everything: a file from a newer format, a missing field, a bad time or role, or negative
/// token counts make the chat unreadable, with a reason that never quotes it.
enum ChatObjectFormat {
    /// The newest object format: what an export writes.
    static let version = 2
    /// The object formats this build reads.
    static let readable = 1...version

    /// `2025-06-14T15:30:12.345Z`.
    private static func format(_ date: Date) -> String {
        UTCTime.text(date)
    }

    /// `chat` as one pretty-printed format 2 object, with a newline.
    static func text(of chat: Chat) throws -> String {
        let record = Record(
            version: version, id: chat.id, title: chat.title, created: format(chat.created),
            updated: format(chat.updated), engine: chat.engine, system: chat.system, role: chat.role,
            messages: chat.messages.map {
                MessageRecord(
                    role: $0.role.rawValue, text: $0.text, time: format($0.time), model: $0.model,
                    server: $0.server,
                    usage: $0.usage.map { UsageRecord(prompt: $0.promptTokens, completion: $0.completionTokens) },
                    serverName: $0.serverName,
                    attachments: $0.attachments.isEmpty
                        ? nil
                        : $0.attachments.map {
                            AttachmentRecord(
                                name: $0.name, type: $0.mediaType, size: $0.size,
                                data: Data($0.bytes).base64EncodedString())
                        })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(record), as: UTF8.self) + "\n"
    }

    /// The chat `text` holds, under whatever id it names, and its format, or why it cannot
    /// be read.
    static func chat(from text: String) throws(ChatFormat.Unreadable) -> (chat: Chat, format: Int) {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        let record: Record
        do {
            record = try decoder.decode(Record.self, from: data)
        } catch {
            // The version alone, to name a newer file as such rather than as whatever
            // field its new shape happens to lack.
            if let version = try? decoder.decode(VersionOnly.self, from: data).version, !readable.contains(version) {
                throw ChatFormat.Unreadable(reason: ChatFormat.unsupported(version))
            }
            throw ChatFormat.Unreadable(reason: reason(for: error))
        }
        guard readable.contains(record.version) else {
            throw ChatFormat.Unreadable(
                reason: record.version == ChatLines.version
                    ? "it says format \(record.version) but is one object, not format \(record.version)'s lines"
                    : ChatFormat.unsupported(record.version))
        }
        var messages: [ChatMessage] = []
        for (index, message) in record.messages.enumerated() {
            // A system prompt is the chat's field, never a message.
            guard let role = ChatMessage.Role(rawValue: message.role), role != .system else {
                throw ChatFormat.Unreadable(reason: "message \(index) has a role that is neither user nor assistant")
            }
            let usage = try message.usage.map { (usage) throws(ChatFormat.Unreadable) -> TokenUsage in
                guard usage.prompt >= 0, usage.completion >= 0 else {
                    throw ChatFormat.Unreadable(reason: "message \(index) has a negative token count")
                }
                return TokenUsage(promptTokens: usage.prompt, completionTokens: usage.completion)
            }
            var attachments: [Attachment] = []
            for (number, attached) in (message.attachments ?? []).enumerated() {
                guard let data = Data(base64Encoded: attached.data), data.count == attached.size,
                    Attachment.imageType(of: data) == attached.type
                else {
                    throw ChatFormat.Unreadable(
                        reason: "attachment \(number) of message \(index) is not the image it says it is")
                }
                attachments.append(Attachment(name: attached.name, mediaType: attached.type, bytes: Array(data)))
            }
            messages.append(
                ChatMessage(
                    role: role, text: message.text, time: try time(message.time, "message \(index)"),
                    model: message.model, server: message.server, usage: usage, attachments: attachments,
                    serverName: message.serverName))
        }
        let chat = Chat(
            id: record.id, title: record.title, messages: messages, created: try time(record.created, "created"),
            updated: try time(record.updated, "updated"), engine: record.engine, system: record.system,
            role: record.role)
        return (chat, record.version)
    }

    private static func time(_ text: String, _ field: String) throws(ChatFormat.Unreadable) -> Date {
        if let milliseconds = UTCTime.milliseconds(text) { return ChatFormat.date(milliseconds: milliseconds) }
        throw ChatFormat.Unreadable(reason: "\(field) is not an ISO 8601 time")
    }

    /// A decoding failure in words, naming the field and never its contents.
    private static func reason(for error: Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context)
            return "the field \(parent.isEmpty ? key.stringValue : "\(parent).\(key.stringValue)") is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "the field \(path(context)) has the wrong type"
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "the field \(path(context)) is malformed"
        default:
            return "it is not valid JSON"
        }
    }

    private struct VersionOnly: Decodable {
        let version: Int
    }

    private struct Record: Codable {
        let version: Int
        let id: String
        let title: String
        let created: String
        let updated: String
        let engine: String?
        /// Since version 2.
        let system: String?
        /// Later in version 2: an older build skips it.
        let role: String?
        let messages: [MessageRecord]
    }

    private struct MessageRecord: Codable {
        let role: String
        let text: String
        let time: String
        /// Since version 2, as are `server` and `usage`.
        let model: String?
        let server: String?
        let usage: UsageRecord?
        /// Later in version 2, as is `attachments`: an older build skips both.
        let serverName: String?
        let attachments: [AttachmentRecord]?
    }

    private struct AttachmentRecord: Codable {
        let name: String
        let type: String
        let size: Int
        let data: String
    }

    private struct UsageRecord: Codable {
        let prompt: Int
        let completion: Int
    }
}
