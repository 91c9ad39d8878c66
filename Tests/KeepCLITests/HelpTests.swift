import KeepCLI
import Testing

@Suite("Help generated from the command table")
struct HelpTests {
    static let json = ArgumentParser.Option("--json", help: "print JSON instead of text")
    static let model = ArgumentParser.Option(
        "--model", "-m", value: "NAME", help: "ask the model NAME instead of the model setting, for this question")

    static let show = CommandSpec(
        name: "show", path: "keep chats show", summary: "Print one chat",
        examples: [Example("keep chats show 2025", "Print the chat whose id starts with 2025:")],
        arguments: ArgumentParser(options: [json], required: ["ID"]))
    static let chats = CommandSpec(
        name: "chats", path: "keep chats", summary: "List your chats",
        help: "Each line: id, last update,\nmessage count, title.\n\n  a table line, kept as it is",
        examples: [Example("keep chats", "List the chats:")], arguments: ArgumentParser(options: [json]),
        subcommands: [show])

    @Test("a command's help: usage lines, summary, help, options, subcommands and examples, in that order")
    func sections() {
        #expect(
            Help.text(Self.chats) == """
                usage: keep chats [--json]
                       keep chats show [--json] ID

                List your chats

                Each line: id, last update, message count, title.

                  a table line, kept as it is

                Options:
                  --json  print JSON instead of text

                Commands:
                  show  Print one chat

                Examples:
                  List the chats:
                    keep chats

                """)
    }

    @Test("a long usage line goes on under the first word after the command, never splitting an option")
    func usageWraps() {
        let ask = CommandSpec(
            name: "ask", path: "keep ask", summary: "Ask",
            arguments: ArgumentParser(
                options: [
                    Self.model, Self.json, .init("--temperature", value: "T"), .init("--system", value: "TEXT"),
                    .init("--max-tokens", "-t", value: "N"), .init("--chat", value: "ID"),
                ], rest: "TEXT"))
        let lines = Help.usage(ask).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("usage: keep ask [-m NAME] [--json]"))
        #expect(lines[1].hasPrefix(String(repeating: " ", count: "usage: keep ask ".count) + "["))
        for line in lines { #expect(line.count <= TextFill.width, "\(line)") }
        #expect(lines.joined(separator: " ").split(separator: " ").joined(separator: " ") == "usage: " + ask.usage)
    }

    @Test("an option's long help goes on under its column")
    func optionHelpWraps() {
        let lines = Usage.optionLines([Self.model, Self.json]).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "  -m, --model NAME  ask the model NAME instead of the model setting, for this",
                "                    question",
                "  --json            print JSON instead of text",
            ])
    }

    @Test("the overview lists the commands and the topics, then the notes and the examples")
    func overview() {
        let topic = HelpTopic("files", heading: "FILES", summary: "Where keep keeps things", text: "Under the root.")
        let text = Help.overview(
            usage: "keep [COMMAND] [ARGS...]", description: "keep is a chat.", commands: [Self.chats],
            topics: [topic], notes: "Every command takes --help.", examples: [Example("keep", "Open a chat:")])
        #expect(
            text == """
                usage: keep [COMMAND] [ARGS...]

                keep is a chat.

                Commands:
                  chats  List your chats

                Help topics (keep help TOPIC):
                  files  Where keep keeps things

                Every command takes --help.

                Examples:
                  Open a chat:
                    keep

                """)
        #expect(Help.text(topic) == "Where keep keeps things\n\nUnder the root.\n")
    }

    @Test("a command that only holds subcommands names them in its usage")
    func subcommandsOnly() {
        let key = CommandSpec(
            name: "key", path: "keep key", summary: "Keys", subcommands: [Self.show], runsAlone: false)
        #expect(key.usage == "keep key show [ARGS...]")
        #expect(key.all.map(\.path) == ["keep key", "keep chats show"])
    }
}
