import KeepCLI
import Testing

@Suite("Shell completions generated from the command table")
struct ShellCompletionsTests {
    static let root = CommandSpec(
        name: "keep", path: "keep", summary: "keep",
        arguments: ArgumentParser(options: [.init("--version", help: "print the version")]),
        subcommands: [
            HelpTests.chats,
            CommandSpec(
                name: "export", path: "keep export", summary: "Export it's chat",
                arguments: ArgumentParser(
                    options: [.init("--format", value: "markdown|json", help: "the format")], required: ["ID"],
                    optional: ["FILE"])),
            CommandSpec(
                name: "ask", path: "keep ask", summary: "Ask",
                arguments: ArgumentParser(required: ["TEXT"], rest: "TEXT")),
        ])

    static let values: [String: ValueCompletion] = ["ID": .keepOutput(["chats", "--ids"]), "FILE": .files]

    @Test("a node per command, each with -h and --help first and its positionals' completions")
    func nodes() {
        let nodes = CompletionNode.nodes(Self.root, values: Self.values)
        #expect(nodes.map(\.path) == ["", "chats", "chats show", "export", "ask"])
        #expect(nodes[0].subcommands.map(\.name) == ["chats", "export", "ask"])
        #expect(nodes.allSatisfy { $0.options.first?.names == ["-h", "--help"] })
        #expect(nodes[2].positionals == [.keepOutput(["chats", "--ids"])])
        #expect(nodes[3].positionals == [.keepOutput(["chats", "--ids"]), .files])
        #expect(nodes[3].options.last?.value == .words(["markdown", "json"]))
        #expect(nodes[3].valued == ["--format"])
        #expect(nodes[4].positionals == [.none] && nodes[4].rest == .none)
    }

    @Test(
        "a placeholder offers its lowercase alternatives by its spelling alone",
        arguments: [
            ("markdown|json", ValueCompletion.words(["markdown", "json"])), ("DAYS|forever", .words(["forever"])),
            ("COMMAND|TOPIC", .none), ("ID", .none), ("json", .none),
        ])
    func spelled(placeholder: String, expected: ValueCompletion) {
        #expect(ValueCompletion.spelled(placeholder) == expected)
    }

    @Test("each shell's script names every command, subcommand and option, and quotes what it says")
    func scripts() {
        let nodes = CompletionNode.nodes(Self.root, values: Self.values)
        for shell in ShellCompletions.Shell.allCases {
            let script = ShellCompletions.script(shell, nodes)
            // fish names an option without its dashes (-l format).
            for word in ["chats", "show", "export", "format", "version", "markdown json", "chats --ids"] {
                #expect(script.contains(word), "\(shell): \(word)")
            }
            #expect(script.hasSuffix("\n"))
        }
        #expect(ShellCompletions.script(.bash, nodes).contains(#"'export:Export it'\''s chat'"#) == false)
        #expect(ShellCompletions.script(.zsh, nodes).contains(#"'export:Export it'\''s chat'"#))
        #expect(ShellCompletions.script(.fish, nodes).contains(#"-d 'Export it\'s chat'"#))
        #expect(ShellCompletions.script(.bash, nodes).contains("complete -F _keep keep"))
    }
}
