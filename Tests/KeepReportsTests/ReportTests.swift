import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import KeepTerminal
import Testing

@testable import KeepApp
@testable import KeepReports

@Suite("The reports --json prints")
struct ReportTests {
    @Test("JSON output has sorted keys, readable slashes, [] for an empty list, and one trailing newline")
    func jsonShape() throws {
        struct Sample: Encodable {
            let zebra = "https://example.com/a"
            let apple: [String] = []
            let nested = ["b": [Int](), "a": [1]]
        }
        #expect(
            try JSONReport.text(of: Sample()) == """
                {
                  "apple" : [],
                  "nested" : {
                    "a" : [
                      1
                    ],
                    "b" : []
                  },
                  "zebra" : "https://example.com/a"
                }

                """)
        #expect(try JSONReport.text(of: ["text": "a\n\n  ]"]).contains(#""a\n\n  ]""#), "text is never rewritten")
    }

    @Test("times are UTC ISO 8601 to the millisecond")
    func times() {
        #expect(UTCTime.text(Date(timeIntervalSince1970: 1_750_000_000.123)) == "2025-06-15T15:06:40.123Z")
    }

    @Test("a search match shows the line of the message that holds the text")
    func matchingLine() {
        #expect(SearchReport.line(of: "first\nthe Café is open\nlast", containing: "cafe") == "the Café is open")
        #expect(SearchReport.line(of: "across\nlines", containing: "s\nl") == "across", "a match across lines")
    }

    @Test("chats that exist only as a draft are listed apart from the chats")
    func draftOnly() {
        let listing = ChatListing(
            chats: [Chat(id: "c1", created: Date())], unreadable: [UnreadableChat(id: "bad", reason: "x")])
        #expect(ChatsReport.draftOnly(listing, draftIds: ["new2", "c1", "bad", "new1"]) == ["new1", "new2"])
        let report = ChatsReport(listing, draftIds: ["c1", "new1"])
        #expect(report.chats.map(\.draft) == [true])
        #expect(report.drafts == ["new1"])
    }

    @Test("keep chats --json written as it goes is byte for byte the report JSONEncoder writes")
    func chatsReportStreamed() throws {
        // Every escape JSONEncoder makes, non-ASCII text, a slash, no engine, a draft, an
        // unreadable chat, enough chats that the text comes in more than one piece, and a
        // title longer than a whole piece.
        // Every escape JSONEncoder makes, and every kind the terminal rule adds.
        let awkward =
            (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\"/\\\u{7F} Café 🙂"
            + "\u{9B}\u{85}\u{AD}\u{202E}\u{2066}\u{200B}\u{2028}\u{2029}\u{FEFF}\u{E0041}👩\u{200D}💻"
        let start = Date(timeIntervalSince1970: 1_750_000_000.123)
        let long = String(repeating: "é", count: 70_000)
        let chats = (0..<2_000).map { (index: Int) -> ChatSummary in
            let title: String = index == 7 ? awkward : index == 11 ? long : "chat \(index)"
            return ChatSummary(
                id: "c\(index)", title: title,
                created: start.addingTimeInterval(Double(index)), updated: start.addingTimeInterval(Double(index) * 2),
                messageCount: index, engine: index % 3 == 0 ? nil : "echo/\(index)")
        }
        for (chats, unreadable, drafts) in [
            (chats, [UnreadableChat(id: "bad", reason: awkward)], ["c1", "new2", "new1"]),
            ([], [], []),
        ] {
            let listing = ChatSummaryListing(chats: chats, unreadable: unreadable)
            var pieces: [[UInt8]] = []
            ChatsReport.writeJSON(listing, draftIds: drafts) { pieces.append(copy $0) }
            let expected = try JSONReport.text(of: ChatsReport(listing, draftIds: drafts))
            #expect(String(decoding: pieces.joined(), as: UTF8.self) == expected)
            #expect(!expected.unicodeScalars.contains { TerminalText.isObeyed($0) && $0 != "\n" }, "nothing raw")
            #expect(chats.isEmpty || pieces.count > 1, "a long report is handed on in pieces")
        }
    }

    @Test("the settings report says whether a secret is configured, and never holds its value")
    func settingsReportHasNoSecret() async throws {
        let secrets = MemorySecrets()
        let settings = SettingsStore(storage: MemoryStorage(), secrets: secrets, defs: SettingRegistry.defs)
        try await settings.load()
        try await settings.setSecret("openaiApiKey", "sk-do-not-print")
        try await settings.set("model", .string("a-model"))
        let report = await SettingsReport.make(
            SettingsFacade(settings), backend: SecretsBackend(secrets: secrets, keyStore: MemoryKeyStore()))
        let text = try JSONReport.text(of: report)
        #expect(text.contains("a-model"), "the report holds the values it shows")
        #expect(!text.contains("sk-do-not-print"))
        let secretRow = try #require(report.settings.first { $0.key == "openaiApiKey" })
        #expect(secretRow.configured == true && secretRow.value == nil && secretRow.default == nil)
        #expect(report.key == SettingsReport.Key(slot: "openai", account: "default", configured: true, problem: nil))
        #expect(report.secrets.protection == "processMemory")
        #expect(report.secrets.warning != nil)
        #expect(report.file.healthy)
    }

    @Test("a settings file with a field that is not used is not called fine; one with none is")
    func settingsFileStatus() async throws {
        let storage = MemoryStorage()
        try await storage.write(StorageKey(.settings, "settings"), #"{ "temperature": "hot", "model": "m" }"#)
        let settings = SettingsStore(storage: storage, secrets: MemorySecrets(), defs: SettingRegistry.defs)
        try await settings.load()
        let backend = SecretsBackend(secrets: MemorySecrets(), keyStore: MemoryKeyStore())
        let file = await SettingsReport.make(SettingsFacade(settings), backend: backend).file
        #expect(!file.healthy && file.refusals.count == 1 && file.refusals[0].hasPrefix("temperature:"), "\(file)")
        #expect(file.status == "1 field of the settings file is not used: its default applies")
        #expect(SettingsReport.fileStatus(.fine, refusals: 2).hasPrefix("2 fields of the settings file are not used"))
        // The pair: a file whose every field is used is fine.
        try await storage.write(StorageKey(.settings, "settings"), #"{ "temperature": 1, "model": "m" }"#)
        try await settings.load()
        let fine = await SettingsReport.make(SettingsFacade(settings), backend: backend).file
        #expect(fine.healthy && fine.refusals.isEmpty && fine.status == "the settings file is fine", "\(fine)")
    }
}

@Suite("keep doctor's checks")
struct DoctorTests {
    @Test(
        "a write refused by a read-only or full disk is advised by what it is, and only a refusal of permission is a chmod",
        arguments: [
            (EROFS, "mounted read-only: remount it read-write", false), (ENOSPC, "free some space", false),
            (EACCES, "chmod u+rwx /data/keep", true), (EPERM, "chmod u+rwx /data/keep", true),
            (EIO, "keep cannot write there", false),
        ])
    func writeAdvice(_ errno: Int32, _ said: String, _ chmod: Bool) {
        let advice = Doctor.writeAdvice(
            StorageError.system("open", path: "/data/keep/.probe", errno: errno), "/data/keep")
        #expect(advice.contains(said), "\(advice)")
        #expect(advice.contains("chmod") == chmod, "\(advice)")
    }

    @Test("a data root not made yet is fine when its parent is writable; a file in its place is a problem")
    func dataRoot() throws {
        let directory = try TemporaryDirectory()
        #expect(Doctor.writable(directory.appending("a/b/keep")).status == .ok)
        #expect(Doctor.writable(directory.path).status == .ok)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the probe is removed")
        try Data().write(to: URL(fileURLWithPath: directory.appending("file")))
        let check = Doctor.writable(directory.appending("file"))
        #expect(check.status == .problem)
        #expect(check.advice != nil)
    }

    @Test("temp files and files keep did not write are reported, and values are not")
    func leftovers() throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        try FileManager.default.createDirectory(atPath: chats, withIntermediateDirectories: true)
        for name in ["a-chat", ".keep-tmp-1", "Not-Encoded"] {
            try Data().write(to: URL(fileURLWithPath: "\(chats)/\(name)"))
        }
        let checks = Doctor.leftovers(directory.path)
        #expect(checks.map(\.name) == ["temp files", "other files"])
        #expect(checks[0].detail.hasPrefix("1 left by interrupted writes (store/chats/.keep-tmp-1)"))
        #expect(checks[1].detail.hasPrefix("1 file in the store that keep did not write (store/chats/Not-Encoded)"))
        #expect(!checks.contains { $0.detail.contains("a-chat") })
        #expect(checks.allSatisfy { $0.status == .note })

        let clean = try TemporaryDirectory()
        #expect(Doctor.leftovers(clean.path) == [.init("temp files", .ok, "none left by interrupted writes")])
    }

    @Test("the report needs the user exactly when a check is a problem")
    func needsUser() {
        #expect(!DoctorReport(dataRoot: "/r", checks: [.init("a", .ok, ""), .init("b", .note, "")]).needsUser)
        #expect(DoctorReport(dataRoot: "/r", checks: [.init("a", .ok, ""), .init("b", .problem, "")]).needsUser)
    }

    @Test(
        "an exported answer's headings sit one level under the chat's title; a # line in a code block is left as it is",
        arguments: [
            ("# Intro\ntext\n## Part", "## Intro\ntext\n### Part"),
            ("###### deepest", "###### deepest"),
            ("#hashtag and # not at the start", "#hashtag and # not at the start"),
            ("```sh\n# a comment\n```\n# After", "```sh\n# a comment\n```\n## After"),
            ("~~~\n```\n# still code\n~~~\n# out", "~~~\n```\n# still code\n~~~\n## out"),
        ])
    func exportDemotesHeadings(_ answer: String, _ exported: String) {
        #expect(ChatMarkdown.demotingHeadings(answer) == exported)
    }
}
