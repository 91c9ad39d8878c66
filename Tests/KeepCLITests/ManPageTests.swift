import KeepCLI
import Testing

@Suite("The man page generated from the command table")
struct ManPageTests {
    static let front = ManPage.Front(
        source: "keep 1.2.3", tagline: "a chat", usage: "keep [COMMAND] [ARGS...]",
        description: "keep is a chat.\n\n  a line kept as it is", examples: [Example("keep", "Open a chat:")],
        seeAlso: "The guide.")

    @Test(
        "text is escaped for roff: backslashes, dashes, quotes, backticks and characters beyond ASCII",
        arguments: [
            (#"a\b"#, #"a\eb"#), ("--json", #"\-\-json"#), ("it's", #"it\(aqs"#), ("`keep`", #"\(gakeep\(ga"#),
            ("naïve …", #"na\[u00EF]ve \[u2026]"#), (".hidden", #"\&.hidden"#), ("plain text", "plain text"),
        ])
    func escapes(text: String, roff: String) {
        #expect(ManPage.escaped(text) == roff)
    }

    @Test("the page has every command's section with its usage, options and examples, then the topics")
    func sections() {
        let page = ManPage.text(
            Self.front, commands: [HelpTests.chats],
            topics: [
                HelpTopic("files", heading: "FILES", summary: "Where", text: "Under the root.")
            ])
        let lines = page.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(#".\""#) == true)
        #expect(lines.contains(#".TH KEEP 1 "" "keep 1.2.3" "User Commands""#))
        for heading in [
            ".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", #".SH "FILES""#, ".SH EXAMPLES",
            #".SH "SEE ALSO""#,
        ] {
            #expect(lines.contains(heading), "\(heading)")
        }
        #expect(lines.contains(#".SS "keep chats""#) && lines.contains(#".SS "keep chats show""#))
        #expect(lines.contains(#"\fB\-\-json\fR"#))
        #expect(lines.contains("keep chats show 2025"))
        // A preformatted line is set as it is, between .nf and .fi.
        let kept = try? #require(lines.firstIndex(of: "  a line kept as it is"))
        #expect(kept.map { lines[$0 - 1] == ".nf" && lines[$0 + 1] == ".fi" } == true)
        // No blank line, which roff would set as vertical space of its own.
        #expect(!page.dropLast().split(separator: "\n", omittingEmptySubsequences: false).contains(""))
        #expect(
            page
                == ManPage.text(
                    Self.front, commands: [HelpTests.chats],
                    topics: [
                        HelpTopic("files", heading: "FILES", summary: "Where", text: "Under the root.")
                    ]), "the same table gives the same bytes: no date")
    }
}
