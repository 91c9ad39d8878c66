/// One command line, taken apart: the options given (by their canonical name), their
/// values, and the positional words in order.
package struct ParsedArguments: Sendable, Equatable {
    /// Whether `-h` or `--help` was given; nothing else is checked then.
    package let help: Bool
    /// The options given, by canonical name, with their values (`""` for a flag).
    package let options: [String: String]
    package let positionals: [String]
    /// Every value given to each repeatable option, in order.
    package let repeated: [String: [String]]

    package init(
        help: Bool = false, options: [String: String] = [:], positionals: [String] = [],
        repeated: [String: [String]] = [:]
    ) {
        self.help = help
        self.options = options
        self.positionals = positionals
        self.repeated = repeated
    }

    /// Whether the option `name` (canonical) was given.
    package func has(_ name: String) -> Bool { options[name] != nil }

    /// The value given to the option `name` (canonical), or `nil`; the last for a repeatable one.
    package func value(_ name: String) -> String? { options[name] }

    /// Every value given to the option `name` (canonical), in order.
    package func values(_ name: String) -> [String] { repeated[name] ?? [] }
}
