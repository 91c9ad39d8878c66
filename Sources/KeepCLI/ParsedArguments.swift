/// One command line, taken apart: the options given (by their canonical name), their
/// values, and the positional words in order.
package struct ParsedArguments: Sendable, Equatable {
    /// Whether `-h` or `--help` was given; nothing else is checked then.
    package let help: Bool
    /// The options given, by canonical name, with their values (`""` for a flag).
    package let options: [String: String]
    package let positionals: [String]

    package init(help: Bool = false, options: [String: String] = [:], positionals: [String] = []) {
        self.help = help
        self.options = options
        self.positionals = positionals
    }

    /// Whether the option `name` (canonical) was given.
    package func has(_ name: String) -> Bool { options[name] != nil }

    /// The value given to the option `name` (canonical), or `nil`.
    package func value(_ name: String) -> String? { options[name] }
}
