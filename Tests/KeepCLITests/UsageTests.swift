import Foundation
import KeepCLI
import Testing

@Suite("Usage lines and option help, generated")
struct UsageTests {
    private static let chat = ArgumentParser.Option("--chat", value: "ID", help: "ask in the chat ID")
    private static let again = ArgumentParser.Option("--continue", "-c", help: "ask in the last chat")
    private static let json = ArgumentParser.Option("--json", help: "print JSON")
    private static let model = ArgumentParser.Option("--model", "-m", value: "NAME", help: "ask NAME")

    @Test(
        "a usage line is generated from the options and positionals a parser declares",
        arguments: [
            (ArgumentParser(), "keep doctor"),
            (ArgumentParser(options: [json]), "keep doctor [--json]"),
            (
                ArgumentParser(options: [chat, again, model, json], rest: "TEXT"),
                "keep doctor [--chat ID] [-c] [-m NAME] [--json] [TEXT...]"
            ),
            (ArgumentParser(options: [json], required: ["TEXT"], rest: "TEXT"), "keep doctor [--json] TEXT..."),
            (ArgumentParser(required: ["ID", "TITLE"], rest: "TITLE"), "keep doctor ID TITLE..."),
            (ArgumentParser(required: ["NAMESPACE", "ID"]), "keep doctor NAMESPACE ID"),
            (ArgumentParser(optional: ["COMMAND", "SUBCOMMAND"]), "keep doctor [COMMAND [SUBCOMMAND]]"),
            (ArgumentParser(required: ["SLOT"], optional: ["ID"], rest: "MORE"), "keep doctor SLOT [ID] [MORE...]"),
            // A rest taken only to be refused (a key typed on the command line) is not offered.
            (
                ArgumentParser(options: [json], required: ["SLOT"], rest: "KEY", restIsRefused: true),
                "keep doctor [--json] SLOT"
            ),
        ])
    func usageLine(parser: ArgumentParser, expected: String) {
        #expect(Usage.line("keep doctor", parser) == expected)
    }

    @Test(
        "every declared option appears in its usage line and in the help, with what it does",
        arguments: [[json], [chat, again], [chat, again, model, json], [model]])
    func everyOptionIsShown(options: [ArgumentParser.Option]) {
        let parser = ArgumentParser(options: options, rest: "TEXT")
        let line = Usage.line("keep ask", parser)
        let help = Usage.optionLines(options).split(separator: "\n").map(String.init)
        #expect(help.count == options.count)
        for (option, helpLine) in zip(options, help) {
            let shortest = option.names.min { $0.count < $1.count } ?? option.name
            #expect(line.contains("[\(shortest)\(option.value.map { " " + $0 } ?? "")]"), "\(line)")
            for name in option.names { #expect(helpLine.contains(name), "\(helpLine)") }
            #expect(helpLine.hasSuffix("  " + option.help), "\(helpLine)")
            // Whatever the usage line offers, the parser accepts.
            var words = [shortest]
            if option.value != nil { words.append("x") }
            #expect(throws: Never.self) { try parser.parse(words) }
        }
    }

    @Test("the option help is aligned in one column, short names first")
    func optionLinesAreAligned() {
        let expected = [
            "  --chat ID" + String(repeating: " ", count: 9) + "ask in the chat ID",
            "  -c, --continue    ask in the last chat",
            "  -m, --model NAME  ask NAME",
        ]
        #expect(Usage.optionLines([Self.chat, Self.again, Self.model]) == expected.joined(separator: "\n"))
        #expect(Usage.optionLines([]) == "")
    }

    @Test("an option described for one command keeps its names and value, with its own help")
    func describedOption() throws {
        let described = Self.model.described("the model for this command")
        #expect(described.names == Self.model.names && described.value == Self.model.value)
        #expect(described.help == "the model for this command")
        #expect(try ArgumentParser(options: [described]).parse(["-m", "x"]).value("--model") == "x")
    }
}
