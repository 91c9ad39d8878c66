import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import KeepTestSupport
import Testing

@testable import KeepChatIndex

@Suite("A search's check of a candidate's stored text, before it is decoded")
struct StoredTextCheckTests {
    /// The word tests' tricky characters, and the ones JSON escapes.
    static let alphabet = WordSearchTests.alphabet + ["\"", "\\", "/", "\t", "\u{1}", "Ä", "ö"]

    @Test("the check never turns down a chat whose message the repository's comparison finds the text in")
    func neverSaysLess() async throws {
        let plan = FuzzPlan(iterations: 1_500, seed: 0x5107)
        var random = plan.generator()
        var checked = 0
        for _ in 0..<plan.iterations {
            guard let (text, query) = WordSearchTests.textAndQuery(Self.alphabet, using: &random) else { continue }
            // Padded by a random run of plain letters, so a match falls anywhere in the 8-byte
            // words the check skips by.
            let padding = String(repeating: "k", count: Int.random(in: 0...40, using: &random))
            let stored = try await Self.stored(["a question", padding + text])
            var check = StoredTextCheck(query)
            let passes = check.mayHold(stored)
            #expect(passes, "\(plan): \(String(reflecting: query)) in \(String(reflecting: text))")
            // The same chat with every non-ASCII scalar written as a JSON escape, as another writer may.
            let passesEscaped = check.mayHold(Self.escapingNonASCII(stored))
            #expect(passesEscaped, "\(plan), escaped: \(String(reflecting: query)) in \(String(reflecting: text))")
            checked += 1
        }
        #expect(checked > plan.iterations / 2, "enough queries matched to mean something")
    }

    @Test("a chat written with JSON escapes for its accents reads as the same chat (what the fuzz above relies on)")
    func escapedChatReadsTheSame() async throws {
        let memory = MemoryStorage()
        let repository = ChatRepository(storage: memory)
        let chat = Self.chat(["Ça va?", "Straße 🙂 café"])
        try await repository.save(chat)
        let key = StorageKey(.chats, chat.id)
        let stored = try #require(try await memory.read(key))
        let escaped = Self.escapingNonASCII(stored)
        #expect(escaped != stored && !escaped.unicodeScalars.contains { !$0.isASCII })
        try await memory.write(key, escaped)
        #expect(try await repository.read(chat.id)?.messages.map(\.text) == chat.messages.map(\.text))
    }

    @Test("the check turns down a chat that holds none of the text, and passes the same chat once it does")
    func turnsDownWhatIsNotThere() async throws {
        var check = StoredTextCheck("Zürich")
        #expect(check.applies)
        let upper = check.mayHold(try await Self.stored(["a question about ZURICH?", "an answer"]))
        let combining = check.mayHold(try await Self.stored(["about zu\u{308}rich", "an answer"]))
        let absent = check.mayHold(try await Self.stored(["a question about Lyon", "an answer about Zug"]))
        #expect(upper && combining && !absent)
        var expanding = StoredTextCheck("strasse")
        let sharp = expanding.mayHold(try await Self.stored(["die Straße", "ja"]))
        let other = expanding.mayHold(try await Self.stored(["die Strasze", "ja"]))
        #expect(sharp && !other)
    }

    @Test(
        "text JSON may escape otherwise than as \\uXXXX is not checked: every chat passes",
        arguments: ["say \"hi\"", "a\\b", "and/or", "tab\there", "two\nlines"])
    func escapablesAlwaysPass(_ text: String) async throws {
        var check = StoredTextCheck(text)
        #expect(!check.applies)
        let passes = check.mayHold(try await Self.stored(["nothing of it", "at all"]))
        #expect(passes)
    }

    // MARK: - Support

    static func chat(_ texts: [String]) -> Chat {
        let time = Date(timeIntervalSince1970: 1_750_000_000)
        return Chat(
            id: "20250601-000000-000001", title: "a chat",
            messages: texts.enumerated().map {
                ChatMessage(role: $0.offset % 2 == 0 ? .user : .assistant, text: $0.element, time: time)
            }, created: time, updated: time)
    }

    /// The text a chat of `texts` is stored as.
    static func stored(_ texts: [String]) async throws -> String {
        let memory = MemoryStorage()
        let chat = chat(texts)
        try await ChatRepository(storage: memory).save(chat)
        return try #require(try await memory.read(StorageKey(.chats, chat.id)))
    }

    /// `stored` with each non-ASCII scalar as a `\uXXXX` escape (a surrogate pair past the BMP).
    static func escapingNonASCII(_ stored: String) -> String {
        var out = ""
        for scalar in stored.unicodeScalars {
            guard !scalar.isASCII else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
        }
        return out
    }
}
