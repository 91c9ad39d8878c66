import Foundation

/// What one command accepts, and the hand-written parser that checks a command line
/// against it. No package dependencies: this is the whole of `keep`'s argument handling.
///
/// The rules:
///
/// - `-h` or `--help` anywhere before `--` asks for help, and nothing else is checked.
/// - An option is known by any of its names (`-c`, `--continue`) and reported under its
///   canonical name. One that takes a value takes the next word, whatever it is, or the
///   text after `=` (`--chat=ID`); a flag given `=` is refused.
/// - A word that starts with `-` and is not a number is an option: an unknown one is a
///   usage error, never a positional. `-` alone, and every word after `--`, are positional.
/// - An option given twice is refused, unless it is repeatable (`-f A -f B`), when each value
///   is kept in order; fewer positionals than required and more than allowed are refused.
package struct ArgumentParser: Sendable {
    /// One option.
    package struct Option: Sendable {
        /// Every name it goes by; the first is the canonical one.
        package let names: [String]
        /// What its value is called (`ID`), or `nil` for a flag.
        package let value: String?
        /// What it does, in one line, for the command's help.
        package let help: String
        /// Whether it may be given more than once, each value kept (`-f A -f B`).
        package let repeatable: Bool

        package init(_ names: String..., value: String? = nil, help: String = "", repeatable: Bool = false) {
            self.init(names: names, value: value, help: help, repeatable: repeatable)
        }

        private init(names: [String], value: String?, help: String, repeatable: Bool) {
            self.names = names
            self.value = value
            self.help = help
            self.repeatable = repeatable
        }

        /// The name the option is reported under.
        package var name: String { names[0] }

        /// The same option, described as `help` for one command (`--json` prints a
        /// different report for each).
        package func described(_ help: String) -> Option {
            Option(names: names, value: value, help: help, repeatable: repeatable)
        }
    }

    package let options: [Option]
    /// The positionals every call needs, by name (`NAMESPACE`).
    package let required: [String]
    /// The positionals a call may add after those, by name.
    package let optional: [String]
    /// The name of any number of further positionals (`TEXT`), or `nil` for none.
    package let rest: String?
    /// Whether the rest is taken only to be refused by the command (a key typed on the
    /// command line), and so left out of the usage line.
    package let restIsRefused: Bool

    package init(
        options: [Option] = [], required: [String] = [], optional: [String] = [], rest: String? = nil,
        restIsRefused: Bool = false
    ) {
        self.options = options
        self.required = required
        self.optional = optional
        self.rest = rest
        self.restIsRefused = restIsRefused
    }

    /// `words` taken apart, or the first thing wrong with them.
    package func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        let beforeEnd = words.prefix { $0 != "--" }
        if beforeEnd.contains("-h") || beforeEnd.contains("--help") { return ParsedArguments(help: true) }
        var given: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        var positionals: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if word == "--" {
                positionals += words[index...]
                break
            }
            guard Self.isOption(word) else {
                positionals.append(word)
                continue
            }
            // `--name=value`; a short option is one word, `=` and all.
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inline = String(word[word.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option \(name)")
            }
            guard given[option.name] == nil || option.repeatable else {
                throw UsageError("\(option.name) is given more than once")
            }
            switch (option.value, inline) {
            case (nil, .some):
                throw UsageError("\(name) takes no value")
            case (nil, nil):
                given[option.name] = ""
            case (.some, .some(let value)):
                given[option.name] = value
                if option.repeatable { repeated[option.name, default: []].append(value) }
            case (.some(let placeholder), nil):
                guard index < words.endIndex else { throw UsageError("\(name) needs a value (\(placeholder))") }
                given[option.name] = words[index]
                if option.repeatable { repeated[option.name, default: []].append(words[index]) }
                index += 1
            }
        }
        if positionals.count < required.count {
            throw UsageError("missing \(required[positionals.count])")
        }
        if rest == nil, positionals.count > required.count + optional.count {
            throw UsageError("unexpected argument \(Self.quoted(positionals[required.count + optional.count]))")
        }
        return ParsedArguments(options: given, positionals: positionals, repeated: repeated)
    }

    /// Whether `word` is meant as an option: a dash and more, and not a number (`-1`).
    private static func isOption(_ word: String) -> Bool {
        word.hasPrefix("-") && word.count > 1 && Double(word) == nil
    }

    private static func quoted(_ word: String) -> String {
        "\"" + word.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
