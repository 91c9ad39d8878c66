import Foundation

/// How a chat is written to storage, in every format keep has had: the one place the
/// repository asks.
///
/// Keep writes format 3 (``ChatLines``: a head line, then one line per message, turn, title
/// or system prompt), so that a turn is one append. It reads formats 1 and 2 as well
/// (``ChatObjectFormat``: one pretty-printed JSON object), exactly as they were read before,
/// and never rewrites one on reading: the first change to such a chat writes it whole in
/// format 3, once. A file's format is told by its first line: a JSON object whose `version`
/// is 3 or more is format 3 or newer; anything else is read as an object of format 1 or 2.
/// A newer format is named as such; whatever cannot be read has a reason that never quotes
/// the chat.
enum ChatFormat {
    /// The format this build writes, and the newest it reads.
    static let version = ChatLines.version
    /// The formats this build reads: every one so far.
    static let readable = 1...version

    /// Why a stored chat cannot be read, in words that never quote it.
    struct Unreadable: Error {
        let reason: String
    }

    /// `date` as the formats keep it (to the millisecond), so that a chat compares equal to
    /// itself after any number of round trips through storage.
    static func normalized(_ date: Date) -> Date {
        self.date(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The one way a time is made from milliseconds, so equal milliseconds are equal dates.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `chat` as this build writes it: format 3, whole.
    static func text(of chat: Chat) -> String {
        ChatLines.text(of: chat)
    }

    /// The chat stored under `id` as `text`, and the format it was in, or why it cannot be
    /// read; a file that names another id is refused.
    static func stored(from bytes: UnsafeBufferPointer<UInt8>, id: String) throws(Unreadable) -> StoredChat {
        let stored = try stored(from: bytes)
        guard stored.chat.id == id else { throw Unreadable(reason: otherId) }
        return stored
    }

    /// Why a file that names another chat's id is refused.
    static let otherId = "the file says it is a different chat (its id field does not match)"

    /// The chat `text` holds, under whatever id it names, and its format, or why it cannot be
    /// read.
    static func stored(from text: String) throws(Unreadable) -> StoredChat {
        var text = text
        let result = text.withUTF8 { bytes -> Result<StoredChat, Unreadable> in
            do throws(Unreadable) {
                return .success(try stored(from: bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The chat `bytes` (a stored chat's UTF-8) hold, as ``stored(from:)-(String)`` reads its
    /// text.
    static func stored(from bytes: UnsafeBufferPointer<UInt8>) throws(Unreadable) -> StoredChat {
        switch ChatLines.headVersion(of: bytes) {
        case nil:
            let (chat, format) = try ChatObjectFormat.chat(from: String(decoding: bytes, as: UTF8.self))
            return StoredChat(chat, format: format)
        case let version? where version == ChatLines.version:
            return StoredChat(try ChatLines.chat(from: bytes), format: version)
        case let version? where version < ChatLines.version:
            // A format 1 or 2 chat written on one line: an object, whole.
            let (chat, format) = try ChatObjectFormat.chat(from: String(decoding: bytes, as: UTF8.self))
            return StoredChat(chat, format: format)
        case let version?:
            throw Unreadable(reason: unsupported(version))
        }
    }

    /// Why a file of format `version` (not one this build reads) cannot be read.
    static func unsupported(_ version: Int) -> String {
        version > Self.version
            ? "it was written in format \(version) by a newer keep; this one reads up to \(Self.version)"
            : "format \(version) is not a chat format"
    }
}
