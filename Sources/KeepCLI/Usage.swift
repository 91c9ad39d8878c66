import Foundation

/// A command's usage line and the options part of its help, generated from what its
/// ``ArgumentParser`` declares, so that neither is typed twice (and neither can fall
/// behind the options the parser accepts).
package enum Usage {
    /// The usage line: `path`, each option in brackets (by its short name when it has one,
    /// with its value's name), then the positionals: `keep ask [-c] [--json] [TEXT...]`.
    /// Required positionals stand bare, optional ones nest in brackets
    /// (`[COMMAND [SUBCOMMAND]]`), a rest ends in `...`; a rest taken only to be refused
    /// is left out.
    package static func line(_ path: String, _ parser: ArgumentParser) -> String {
        ([path] + parser.options.map { "[\(shown($0))]" } + positionals(parser)).joined(separator: " ")
    }

    /// The options part of the help: one row per option, its names (short ones first)
    /// and value, then what it does, aligned in two columns and filled to
    /// ``TextFill/width`` (a long help goes on under its column). Empty for no options.
    package static func optionLines(_ options: [ArgumentParser.Option]) -> String {
        TextFill.columns(options.map { (head($0), $0.help) }).joined(separator: "\n")
    }

    /// An option as its help names it: `-c, --continue`, `-m, --model NAME`, `--chat ID`.
    package static func head(_ option: ArgumentParser.Option) -> String {
        let short = option.names.filter { !$0.hasPrefix("--") }
        let long = option.names.filter { $0.hasPrefix("--") }
        return (short + long).joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
    }

    /// A usage line's words, a bracketed group (`[--chat ID]`, `[COMMAND [SUBCOMMAND]]`) one
    /// word however many spaces it holds.
    package static func words(_ line: String) -> [String] {
        var words: [String] = []
        var depth = 0
        for word in line.split(separator: " ") {
            if depth > 0 { words[words.count - 1] += " " + word } else { words.append(String(word)) }
            depth += word.filter { $0 == "[" }.count - word.filter { $0 == "]" }.count
        }
        return words
    }

    /// How the usage line shows `option`: `-c`, `-m NAME`, `--chat ID`.
    private static func shown(_ option: ArgumentParser.Option) -> String {
        let name = option.names.first { !$0.hasPrefix("--") } ?? option.name
        return option.value.map { "\(name) \($0)" } ?? name
    }

    private static func positionals(_ parser: ArgumentParser) -> [String] {
        var words = parser.required
        var rest = parser.restIsRefused ? nil : parser.rest
        // `TEXT...` for one or more, when the rest continues the last required positional.
        if let named = rest, parser.optional.isEmpty, let last = words.last, last == named {
            words[words.count - 1] = named + "..."
            rest = nil
        }
        if let nested = parser.optional.reversed().reduce(
            nil as String?,
            { inner, name in
                "[" + name + (inner.map { " " + $0 } ?? "") + "]"
            })
        {
            words.append(nested)
        }
        if let rest { words.append("[\(rest)...]") }
        return words
    }
}
