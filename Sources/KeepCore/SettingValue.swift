/// The value of one setting: a string, a number or a flag, and nothing else.
///
/// A settings file is hand-editable, so anything a person can type ends up here only
/// after ``SettingDef/accept(_:)`` has checked it; objects, arrays and `null` never
/// become a `SettingValue`.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// A number; JSON has one kind of number, so this is a `Double`.
    case number(Double)
    /// A flag: `true` or `false`.
    case bool(Bool)

    /// The kind of a value, which every setting fixes through its default.
    public enum Kind: String, Sendable, CaseIterable {
        /// Text, a number, or a flag.
        case string, number, bool
    }

    /// Which kind of value this is; a setting accepts only its default's kind.
    public var kind: Kind {
        switch self {
        case .string: .string
        case .number: .number
        case .bool: .bool
        }
    }

    /// The text, when this is a string.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number, when this is a number.
    public var number: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The flag, when this is a flag.
    public var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The value as a person would type it: `echo`, `0.7`, `2`, `true`.
    public var description: String {
        switch self {
        case .string(let text): text
        case .number(let number):
            number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): String(flag)
        }
    }
}
