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

    /// The options part of the help: one line per option, its names (short ones first)
    /// and value, then what it does, aligned in two columns. Empty for no options.
    package static func optionLines(_ options: [ArgumentParser.Option]) -> String {
        let heads = options.map { option in
            let short = option.names.filter { !$0.hasPrefix("--") }
            let long = option.names.filter { $0.hasPrefix("--") }
            return (short + long).joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
        }
        let width = heads.map(\.count).max() ?? 0
        return zip(heads, options).map { head, option in
            let line = "  " + head.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + option.help
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
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
