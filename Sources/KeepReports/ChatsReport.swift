import Foundation
import KeepCore

/// What `keep chats --json` prints: every chat, newest first, the ones that cannot be
/// read (never hidden), and the new chats whose first answer never came.
///
/// ```json
/// { "chats" : [ { "created" : "…", "draft" : false, "engine" : "echo", "id" : "…",
///                 "messages" : 2, "title" : "hello", "updated" : "…" } ],
///   "drafts" : [ "20250614-153012-3fa9c1" ],
///   "unreadable" : [ { "id" : "broken", "reason" : "it is not valid JSON" } ] }
/// ```
package struct ChatsReport: Codable, Sendable, Equatable {
    /// One readable chat.
    package struct Entry: Codable, Sendable, Equatable {
        /// The chat's id.
        package let id: String
        /// The chat's title; empty when it has none.
        package let title: String
        /// When the chat began, in UTC.
        package let created: String
        /// When the chat last changed, in UTC.
        package let updated: String
        /// How many messages (questions and answers) it holds.
        package let messages: Int
        /// The engine that answered last.
        package let engine: String?
        /// Whether a question of it waits for an answer.
        package let draft: Bool
    }

    /// One chat that cannot be read, and why.
    package struct Unreadable: Codable, Sendable, Equatable {
        /// The chat's id.
        package let id: String
        /// What is wrong with it, in words; never its contents.
        package let reason: String
    }

    /// The readable chats, most recently updated first.
    package let chats: [Entry]
    /// The chats that cannot be read, each with why.
    package let unreadable: [Unreadable]
    /// Chats that exist only as a draft: their first question never got its answer.
    package let drafts: [String]

    /// The report of `listing`, given the ids that have a draft.
    package init(_ listing: ChatListing, draftIds: [String]) {
        self.init(ChatSummaryListing(listing), draftIds: draftIds)
    }

    /// The report of `listing` (from the chat index), given the ids that have a draft.
    package init(_ listing: ChatSummaryListing, draftIds: [String]) {
        let withDraft = Set(draftIds)
        chats = listing.chats.map {
            Entry(
                id: $0.id, title: $0.title, created: UTCTime.text($0.created),
                updated: UTCTime.text($0.updated), messages: $0.messageCount, engine: $0.engine,
                draft: withDraft.contains($0.id))
        }
        unreadable = listing.unreadable.map { Unreadable(id: $0.id, reason: $0.reason) }
        drafts = Self.draftOnly(listing, draftIds: draftIds)
    }

    /// `JSONReport.text(of: ChatsReport(listing, draftIds: draftIds))`, byte for byte,
    /// written as it is made and handed to `sink` in pieces of about 64 KiB: the report of
    /// tens of thousands of chats is never held whole, nor built as a tree first.
    package static func writeJSON(
        _ listing: ChatSummaryListing, draftIds: [String], to sink: (borrowing [UInt8]) -> Void
    ) {
        let withDraft = Set(draftIds)
        withoutActuallyEscaping(sink) { sink in
            var json = JSONStream(sink: sink)
            json.openObject()
            json.key("chats")
            json.openArray()
            for chat in listing.chats {
                json.openObject()
                json.member("created", chat.created)
                json.member("draft", !withDraft.isEmpty && withDraft.contains(chat.id))
                if let engine = chat.engine { json.member("engine", engine) }
                json.member("id", chat.id)
                json.member("messages", chat.messageCount)
                json.member("title", chat.title)
                json.member("updated", chat.updated)
                json.closeObject()
            }
            json.closeArray()
            json.key("drafts")
            json.openArray()
            for id in draftOnly(listing, draftIds: draftIds) { json.string(id) }
            json.closeArray()
            json.key("unreadable")
            json.openArray()
            for chat in listing.unreadable {
                json.openObject()
                json.member("id", chat.id)
                json.member("reason", chat.reason)
                json.closeObject()
            }
            json.closeArray()
            json.closeObject()
            json.finish()
        }
    }

    /// The ids in `draftIds` that have no chat, readable or not: new chats whose first
    /// answer never came, sorted.
    package static func draftOnly(_ listing: ChatListing, draftIds: [String]) -> [String] {
        draftOnly(ChatSummaryListing(listing), draftIds: draftIds)
    }

    /// ``draftOnly(_:draftIds:)`` for a listing of summaries.
    package static func draftOnly(_ listing: ChatSummaryListing, draftIds: [String]) -> [String] {
        guard !draftIds.isEmpty else { return [] }
        let known = Set(listing.chats.map(\.id)).union(listing.unreadable.map(\.id))
        return draftIds.filter { !known.contains($0) }.sorted()
    }
}
