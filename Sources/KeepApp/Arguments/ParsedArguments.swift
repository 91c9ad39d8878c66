/// One command line, taken apart: the options given (by their canonical name), their
/// values, and the positional words in order.
public struct ParsedArguments: Sendable, Equatable {
    /// Whether `-h` or `--help` was given; nothing else is checked then.
    public let help: Bool
    /// The options given, by canonical name, with their values (`""` for a flag).
    public let options: [String: String]
    public let positionals: [String]

    public init(help: Bool = false, options: [String: String] = [:], positionals: [String] = []) {
        self.help = help
        self.options = options
        self.positionals = positionals
    }

    /// Whether the option `name` (canonical) was given.
    public func has(_ name: String) -> Bool { options[name] != nil }

    /// The value given to the option `name` (canonical), or `nil`.
    public func value(_ name: String) -> String? { options[name] }
}
