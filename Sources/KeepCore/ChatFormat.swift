import Foundation

/// How a chat is written to storage: a versioned, pretty-printed JSON object.
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
/// with none of them, and no migration ever rewrites it. Later in version 2, as optional
/// fields an older build skips: `role` on the chat (the role it was asked in), `serverName`
/// on an answer (the server's name beside its address), and `attachments` on a question,
/// each `{"name", "type", "size", "data"}` with the image's bytes in base64 (a size that
/// does not match the bytes, or a type that is not an image, makes the chat unreadable). Times are UTC, ISO 8601, to the
/// millisecond. Reading checks everything: a file from a newer format, a missing field, a
/// bad time or role, negative token counts, or an id that is not the one the file is stored
/// under makes the chat unreadable, with a reason that never quotes it.
enum ChatFormat {
    /// The format this build writes, and the newest it reads.
    static let version = 2
    /// The formats this build reads: every one so far, each a subset of the next.
    static let readable = 1...version

    /// `date` as the format keeps it (to the millisecond), so that a chat compares equal
    /// to itself after any number of round trips through storage.
    static func normalized(_ date: Date) -> Date {
        self.date(milliseconds: milliseconds(date))
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The one way a time is made from milliseconds, so equal milliseconds are equal dates.
    private static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `2025-06-14T15:30:12.345Z`.
    private static func format(_ date: Date) -> String {
        UTCTime.text(date)
    }

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

    /// The chat stored under `id` as `text`, or why it cannot be read.
    static func chat(from text: String, id: String) throws(Unreadable) -> Chat {
        let chat = try chat(from: text)
        guard chat.id == id else {
            throw Unreadable(reason: "the file says it is a different chat (its id field does not match)")
        }
        return chat
    }

    /// The chat `text` holds, under whatever id it names, or why it cannot be read.
    static func chat(from text: String) throws(Unreadable) -> Chat {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        let record: Record
        do {
            record = try decoder.decode(Record.self, from: data)
        } catch {
            // The version alone, to name a newer file as such rather than as whatever
            // field its new shape happens to lack.
            if let version = try? decoder.decode(VersionOnly.self, from: data).version, !readable.contains(version) {
                throw Unreadable(reason: unsupported(version))
            }
            throw Unreadable(reason: reason(for: error))
        }
        guard readable.contains(record.version) else { throw Unreadable(reason: unsupported(record.version)) }
        var messages: [ChatMessage] = []
        for (index, message) in record.messages.enumerated() {
            // A system prompt is the chat's field, never a message.
            guard let role = ChatMessage.Role(rawValue: message.role), role != .system else {
                throw Unreadable(reason: "message \(index) has a role that is neither user nor assistant")
            }
            let usage = try message.usage.map { (usage) throws(Unreadable) -> TokenUsage in
                guard usage.prompt >= 0, usage.completion >= 0 else {
                    throw Unreadable(reason: "message \(index) has a negative token count")
                }
                return TokenUsage(promptTokens: usage.prompt, completionTokens: usage.completion)
            }
            var attachments: [Attachment] = []
            for (number, attached) in (message.attachments ?? []).enumerated() {
                guard let data = Data(base64Encoded: attached.data), data.count == attached.size,
                    Attachment.imageType(of: data) == attached.type
                else {
                    throw Unreadable(reason: "attachment \(number) of message \(index) is not the image it says it is")
                }
                attachments.append(Attachment(name: attached.name, mediaType: attached.type, bytes: Array(data)))
            }
            messages.append(
                ChatMessage(
                    role: role, text: message.text, time: try time(message.time, "message \(index)"),
                    model: message.model, server: message.server, usage: usage, attachments: attachments,
                    serverName: message.serverName))
        }
        return Chat(
            id: record.id, title: record.title, messages: messages, created: try time(record.created, "created"),
            updated: try time(record.updated, "updated"), engine: record.engine, system: record.system,
            role: record.role)
    }

    /// Why a file of format `version` (not one this build reads) cannot be read.
    private static func unsupported(_ version: Int) -> String {
        version > Self.version
            ? "it was written in format \(version) by a newer keep; this one reads up to \(Self.version)"
            : "format \(version) is not a chat format"
    }

    private static func time(_ text: String, _ field: String) throws(Unreadable) -> Date {
        if let milliseconds = UTCTime.milliseconds(text) { return date(milliseconds: milliseconds) }
        throw Unreadable(reason: "\(field) is not an ISO 8601 time")
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

    /// Why a stored chat cannot be read.
    struct Unreadable: Error {
        let reason: String
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
