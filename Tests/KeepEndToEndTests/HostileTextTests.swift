import Foundation
import Testing

/// Nothing keep prints is raw: every command's output, for a hostile chat on disk, a hostile
/// server and a hostile import, read from a pseudo-terminal as a person's terminal would
/// get it, holds no character a terminal would obey (or a reader be misled by) other than
/// keep's own line ends and styles.
///
/// The hostile text holds one of every kind the rule names: ESC sequences (OSC 52, a window
/// title, a screen clear, DCS, APC), the one-byte C1 controls (CSI, OSC, ST, DCS, NEL), DEL,
/// a carriage return, bidirectional overrides, isolates and marks, zero-width characters, the
/// soft hyphen, a byte-order mark, line and paragraph separators and tag characters.
@Suite("Nothing prints raw: a hostile chat, server and import, on a terminal")
struct HostileTextTests {
    static let hostile =
        "\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]0;title\u{1B}\\\u{1B}[2J\u{1B}[5m\u{1B}P1$r\u{1B}\\\u{1B}_apc\u{1B}\\"
        + "\u{9B}31m\u{9D}0;t\u{9C}\u{90}q\u{85}\u{7F}\rrev\u{202E}rse\u{2066}iso\u{2069}\u{200E}\u{200F}\u{61C}"
        + "gpt\u{200B}4\u{200D}o\u{2060}\u{FEFF}\u{AD}\u{2028}\u{2029}tag\u{E0041}\u{E007F}"

    /// A hostile chat id: a prefix people can type (`zz`) and one of each kind (the whole
    /// hostile text would make a file name longer than 255 bytes).
    static let hostileId = "zz\u{1B}]0;t\u{07}\u{1B}[2J\u{9B}\u{85}\u{202E}\u{200B}\u{2028}\u{E0041}\r\u{7F}"

    /// What on `screen` is neither text nor keep's own: each control, format, separator or
    /// tag character, and each ESC that does not start one of keep's own sequences (the
    /// renderer's styles, clearing the line, bracketed paste), described with its offset.
    static func violations(_ screen: String) -> [String] {
        let scalars = Array(screen.unicodeScalars)
        var found: [String] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            defer { index += 1 }
            switch scalar {
            case "\n", "\t":
                continue
            case "\r":
                // The terminal's own \r\n, and keep's "\r ESC[K" (back to the start, line cleared).
                if index + 1 < scalars.count, scalars[index + 1] == "\n" || scalars[index + 1] == "\u{1B}" { continue }
            case "\u{1B}":
                if let length = ownSequence(scalars[index...]) {
                    index += length - 1
                    continue
                }
            case "\u{200C}", "\u{200D}":
                // A joiner between two non-ASCII letters or emoji (👩‍💻) is text; anywhere else it hides.
                if index > 0, index + 1 < scalars.count, joins(scalars[index - 1]), joins(scalars[index + 1]) {
                    continue
                }
            default:
                let category = scalar.properties.generalCategory
                let named =
                    [.control, .format, .lineSeparator, .paragraphSeparator].contains(category)
                    || (0xE0000...0xE007F).contains(scalar.value)
                if !named { continue }
            }
            let context = String(String.UnicodeScalarView(scalars[max(0, index - 12)..<min(scalars.count, index + 12)]))
            found.append(
                "U+\(String(scalar.value, radix: 16, uppercase: true)) at \(index) in \(context.debugDescription)")
        }
        return found
    }

    private static func joins(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F
            && (scalar.properties.isEmoji || scalar.properties.isEmojiModifier || scalar.value == 0xFE0F
                || scalar.properties.isAlphabetic || scalar.properties.generalCategory == .nonspacingMark)
    }

    /// The length of keep's own escape sequence at the start of `scalars`, or `nil`: SGR with
    /// only the renderer's codes (reset, bold, dim, italic, underline, cyan), erase in line,
    /// bracketed paste on and off.
    private static func ownSequence(_ scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        let text = String(String.UnicodeScalarView(scalars.prefix(16)))
        for own in ["\u{1B}[K", "\u{1B}[?2004h", "\u{1B}[?2004l"] where text.hasPrefix(own) {
            return own.unicodeScalars.count
        }
        guard let match = text.prefixMatch(of: /\x1B\[([0-9;]*)m/) else { return nil }
        let codes = match.1.split(separator: ";", omittingEmptySubsequences: false)
        guard codes.allSatisfy({ ["", "0", "1", "2", "3", "4", "36"].contains($0) }) else { return nil }
        return match.0.unicodeScalars.count
    }

    /// `text` as a JSON string literal.
    static func json(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// A server whose every word is hostile: the answer, the model it says answered, its
    /// model list, its `Server` banner, and its error message when asked for the model `fail`.
    static func hostileServer() throws -> LoopbackServer {
        try LoopbackServer { request, responder in
            switch (request.method, request.path) {
            case ("POST", let path) where path.hasSuffix("/chat/completions"):
                if (request.json?["model"] as? String) == "fail" {
                    responder.send(status: 400, body: #"{"error":{"message":\#(json("refused " + hostile))}}"#)
                    return
                }
                responder.beginEvents()
                for piece in ["An answer: ", hostile, " and **bold** ", hostile] {
                    responder.event(
                        #"{"object":"chat.completion.chunk","model":\#(json("model" + hostile)),"#
                            + #""choices":[{"index":0,"delta":{"content":\#(json(piece))}}]}"#)
                }
                responder.usage(prompt: 3, completion: 4)
                responder.done()
                responder.close()
            case ("GET", let path) where path.hasSuffix("/models"):
                let list = ["model" + hostile, "plain-model"].map { #"{"id":\#(json($0)),"object":"model"}"# }
                let body = #"{"object":"list","data":[\#(list.joined(separator: ","))]}"#
                responder.raw(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nServer: banner\u{1B}]0;srv\u{07}\u{202E}x\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            default:
                responder.send(status: 404, body: #"{"error":{"message":\#(json("no route" + hostile))}}"#)
            }
        }
    }

    /// A chat file (format 2) under the hostile id, every field hostile.
    static var hostileChat: String {
        """
        {"created":"2025-01-01T00:00:00.000Z","engine":\(json("remote" + hostile)),"id":\(json(hostileId)),\
        "messages":[{"role":"user","text":\(json("question " + hostile)),"time":"2025-01-01T00:00:00.000Z"},\
        {"model":\(json("model" + hostile)),"role":"assistant","server":\(json("http://s/" + hostile)),\
        "text":\(json("answer " + hostile)),"time":"2025-01-01T00:00:01.000Z","usage":{"completion":2,"prompt":1}}],\
        "system":\(json("system " + hostile)),"title":\(json("title " + hostile)),\
        "updated":"2025-01-01T00:00:01.000Z","version":2}
        """
    }

    /// The file name the store gives `id`: `a-z 0-9 - _` literal, every other byte `~xx`.
    static func storedName(_ id: String) -> String {
        id.utf8.map { byte in
            let literal = (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
            return literal ? String(UnicodeScalar(byte)) : "~" + String(format: "%02x", byte)
        }.joined()
    }

    /// A sandbox whose remote engine is the hostile server, with the hostile chat planted,
    /// a hostile settings file and a hostile import file; answers it and the import's path.
    private func hostileWorld(_ server: LoopbackServer) async throws -> (Sandbox, String) {
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        // The settings file as a hand (or an attacker) edited it: unknown and refused fields.
        let settingsFile = sandbox.file("settings", "settings")
        var settings = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: settingsFile)))
        settings = (settings as? [String: Any] ?? [:]).merging(
            [
                "unknown" + Self.hostile: "value" + Self.hostile, "keyAccount": "account" + Self.hostile,
                "temperature": Self.hostile,
            ]
        ) { _, new in new }
        try JSONSerialization.data(withJSONObject: settings).write(to: URL(fileURLWithPath: settingsFile))
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/store/chats", withIntermediateDirectories: true)
        try Data(Self.hostileChat.utf8).write(
            to: URL(fileURLWithPath: sandbox.root + "/store/chats/" + Self.storedName(Self.hostileId)))
        let importFile = sandbox.directory.appending("hostile-import.json")
        try Data(
            Self.hostileChat.replacingOccurrences(
                of: Self.json(Self.hostileId), with: Self.json("\u{0}" + Self.hostile)
            )
            .utf8
        ).write(to: URL(fileURLWithPath: importFile))
        return (sandbox, importFile)
    }

    /// Runs `keep arguments` on a pseudo-terminal to its end; its status and the screen.
    private func onTerminal(_ sandbox: Sandbox, _ arguments: [String]) async throws -> (ExitStatus, String) {
        let process = try sandbox.start(arguments, terminal: true)
        let status = await process.exit()
        return (status, await process.output.waitForEnd())
    }

    @Test("the check sees every kind of character the rule names, raw, and keep's own styles and line ends pass")
    func checkSeesRawText() {
        // The positive first: each hostile character alone is a violation.
        for scalar in Self.hostile.unicodeScalars where scalar.value < 0x20 || scalar.value >= 0x7F {
            #expect(!Self.violations("x" + String(scalar) + "y").isEmpty, "U+\(String(scalar.value, radix: 16))")
        }
        #expect(Self.violations("\u{1B}[31mred\u{1B}[0m").count == 1, "a colour keep never uses")
        #expect(Self.violations("abc\rdef").count == 1, "a carriage return that overwrites")
        #expect(Self.violations("gpt\u{200D}4").count == 1, "a joiner between Latin letters")
        // keep's own: the renderer's styles, the indicator cleared, the terminal's line ends.
        #expect(Self.violations("\u{1B}[1;4mTitle\u{1B}[0m\r\n\u{1B}[2m…\u{1B}[0m\r\u{1B}[Kanswer\r\n\t👩‍💻").isEmpty)
    }

    @Test("every command's output for a hostile chat, server and import holds no control character on a terminal")
    func everyCommand() async throws {
        let server = try Self.hostileServer()
        let (sandbox, importFile) = try await hostileWorld(server)
        // Raw to a pipe, by design (the store's bytes, as cat shows them): the check sees it.
        let piped = try await sandbox.run("store", "get", "chats", Self.hostileId)
        #expect(piped.status == .exited(0), "\(piped)")
        #expect(!Self.violations(piped.stdout).isEmpty, "the check sees the hostile chat raw")

        // Each command, and whether its output quotes the hostile text (shown, never dropped).
        let commands: [([String], Bool)] = [
            (["chats"], true), (["chats", "--json"], true), (["chats", "show", "zz"], true),
            (["chats", "show", "zz", "--json"], true), (["chats", "search", "rse"], true),
            (["chats", "search", "rse", "--json"], true), (["chats", "export", "zz"], true),
            (["chats", "export", "zz", "--format", "json"], true), (["chats", "import", importFile], true),
            (["chats", "import", importFile, "--json"], true),
            (["chats", "import", "/nonexistent" + Self.hostile], true),
            (["ask", "--chat", "zz", "a question"], true), (["ask", "-c", "again"], true),
            (["ask", "--raw", "raw please"], true), (["ask", "--json", "as json"], true),
            (["ask", "-m", "fail", "fail please"], true), (["ask", "--chat", "nothing" + Self.hostile, "x"], true),
            (["settings"], true), (["settings", "--json"], true), (["settings", "get", "keyAccount"], true),
            (["settings", "get", "temperature"], false), (["doctor"], true), (["doctor", "--json"], true),
            (["engines"], true), (["engines", "--json"], true), (["engines", "use", "model" + Self.hostile], true),
            (["whatsnew"], false), (["whatsnew", "--json"], false), (["usage"], true), (["usage", "--json"], true),
            (["store", "ls", "chats"], true), (["store", "get", "chats", Self.hostileId], true),
            (["key", "status"], false),
            (["servers"], true), (["servers", "--json"], true), (["roles"], false), (["aliases"], false),
            (["chats", "rename", "zz", "renamed"], true), (["chats", "rm", "zz"], true),
            (["bogus" + Self.hostile], true),
        ]
        for (arguments, quotes) in commands {
            let (status, screen) = try await onTerminal(sandbox, arguments)
            let problems = Self.violations(screen)
            let name = "keep \(arguments.joined(separator: " ").debugDescription) (\(status))"
            #expect(problems.isEmpty, "\(name): \(problems)")
            if quotes {
                #expect(
                    screen.contains("^[") || screen.contains("\\u001b") || screen.contains("\\u{1b}"),
                    "\(name): \(screen)")
            }
        }
        #expect(server.requests.contains { $0.path.hasSuffix("/chat/completions") }, "the server was asked")
    }

    @Test("the interactive chat shows a hostile chat, its answers and its list with no control character")
    func interactiveChat() async throws {
        let server = try Self.hostileServer()
        let (sandbox, _) = try await hostileWorld(server)
        let chat = try sandbox.start(["chat", "zz"], terminal: true)
        /// Waits for each of `needles` in turn, then for the prompt after the last (nothing
        /// after the last needle holds `> ` but the prompt).
        func shown(_ needles: [String], after start: Int) async -> Bool {
            var mark = start
            for needle in needles {
                guard await chat.output.wait(for: needle, after: mark) else { return false }
                let text = Array(chat.output.text.utf8)
                mark =
                    (String(decoding: text[mark...], as: UTF8.self).range(of: needle)).map {
                        mark + String(decoding: text[mark...], as: UTF8.self)[..<$0.upperBound].utf8.count
                    } ?? mark
            }
            return await chat.output.wait(for: "> ", after: mark)
        }
        #expect(await shown(["question", "answer", "<U+E007F>"], after: 0), "the chat and its turns")
        let steps = [
            ("/chats", ["title ^[]52;", "<U+E007F>"]), ("/system", ["System prompt: system ^[]52;", "<U+E007F>"]),
            ("a question", ["bold", "<U+E007F>"]), ("/model", ["Model: test-model"]),
        ]
        for (line, needles) in steps {
            let mark = chat.output.count
            chat.write(line + "\r")
            #expect(await shown(needles, after: mark + line.utf8.count), "\(line)")
        }
        chat.write("\u{04}")
        #expect(await chat.exit() == .exited(0))
        let problems = Self.violations(chat.output.text)
        #expect(problems.isEmpty, "\(problems)")
        #expect(chat.output.text.contains("^[]52;"), "the hostile text is shown, neutralised")
    }
}
