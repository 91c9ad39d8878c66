import KeepCLI
import Testing

@Suite("The argument parser")
struct ArgumentParserTests {
    private let parser = ArgumentParser(
        options: [.init("--chat", value: "ID"), .init("--continue", "-c"), .init("--json")], rest: "TEXT")

    @Test(
        "a command line is taken apart into options and positionals",
        arguments: [
            ([], ParsedArguments()),
            (["hello", "world"], ParsedArguments(positionals: ["hello", "world"])),
            (["--chat", "c1", "hi"], ParsedArguments(options: ["--chat": "c1"], positionals: ["hi"])),
            (["--chat=c1", "hi"], ParsedArguments(options: ["--chat": "c1"], positionals: ["hi"])),
            (["--chat=", "hi"], ParsedArguments(options: ["--chat": ""], positionals: ["hi"])),
            (["--chat", "--json"], ParsedArguments(options: ["--chat": "--json"])),
            (["-c", "more"], ParsedArguments(options: ["--continue": ""], positionals: ["more"])),
            (["hi", "--continue"], ParsedArguments(options: ["--continue": ""], positionals: ["hi"])),
            (["--", "--json", "-c"], ParsedArguments(positionals: ["--json", "-c"])),
            (["-", "-1", "-0.5"], ParsedArguments(positionals: ["-", "-1", "-0.5"])),
            (["--json", "a=b"], ParsedArguments(options: ["--json": ""], positionals: ["a=b"])),
        ])
    func parses(words: [String], expected: ParsedArguments) throws {
        #expect(try parser.parse(words) == expected)
    }

    @Test(
        "a command line that does not fit is refused, saying what is wrong",
        arguments: [
            (["--colour"], "unknown option --colour"),
            (["-x", "hi"], "unknown option -x"),
            (["-c=1"], "unknown option -c=1"),
            (["--json=yes"], "--json takes no value"),
            (["--chat"], "--chat needs a value (ID)"),
            (["--json", "--json"], "--json is given more than once"),
            (["-c", "--continue"], "--continue is given more than once"),
        ])
    func refuses(words: [String], message: String) {
        #expect(throws: UsageError(message)) { try parser.parse(words) }
    }

    @Test("-h or --help anywhere before -- asks for help, whatever else is wrong")
    func help() throws {
        #expect(try parser.parse(["--bogus", "-h"]).help)
        #expect(try parser.parse(["x", "--help", "--chat"]).help)
        #expect(try ArgumentParser(required: ["KEY"]).parse(["--help"]).help)
        #expect(try !parser.parse(["--", "--help"]).help, "after --, it is text")
        #expect(try parser.parse(["--", "--help"]).positionals == ["--help"])
    }

    @Test("positionals are counted: the required ones, the optional ones, and a rest only where allowed")
    func positionals() throws {
        let store = ArgumentParser(required: ["NAMESPACE"], optional: ["ID"])
        #expect(throws: UsageError("missing NAMESPACE")) { try store.parse([]) }
        #expect(try store.parse(["chats"]).positionals == ["chats"])
        #expect(try store.parse(["chats", "c1"]).positionals == ["chats", "c1"])
        #expect(throws: UsageError("unexpected argument \"extra\"")) { try store.parse(["chats", "c1", "extra"]) }

        let set = ArgumentParser(required: ["KEY", "VALUE"])
        #expect(throws: UsageError("missing VALUE")) { try set.parse(["model"]) }
        let search = ArgumentParser(required: ["TEXT"], rest: "TEXT")
        #expect(try search.parse(["a", "b", "c"]).positionals == ["a", "b", "c"])
    }

    @Test("an option is reported under its canonical name, and read back by it")
    func canonicalNames() throws {
        let parsed = try parser.parse(["-c", "--chat", "x"])
        #expect(parsed.has("--continue") && !parsed.has("-c"))
        #expect(parsed.value("--chat") == "x")
        #expect(parsed.value("--json") == nil)
    }
}

/// Options given more than once.
@Suite("Repeatable options")
struct RepeatableOptionTests {
    @Test("a repeatable option keeps each value in order; any other given twice is refused")
    func repeatable() throws {
        let parser = ArgumentParser(
            options: [
                ArgumentParser.Option("--file", "-f", value: "PATH", repeatable: true),
                ArgumentParser.Option("--chat", value: "ID"),
            ], rest: "TEXT")
        let parsed = try parser.parse(["-f", "a", "--file=b", "hi"])
        #expect(parsed.values("--file") == ["a", "b"])
        #expect(parsed.positionals == ["hi"])
        #expect(throws: UsageError.self) { try parser.parse(["--chat", "a", "--chat", "b"]) }
    }
}
