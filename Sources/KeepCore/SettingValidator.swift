import Foundation

/// What a setting accepts: a rule in words and the check that enforces it.
///
/// `validate` answers the value to keep (a check may tidy it, for example by trimming
/// spaces) or `nil` when the value is refused. It runs on every `set` and on every field
/// `load` reads; the registry's own test makes sure it accepts each shipped default
/// unchanged. The rule is what an error shows, so it never needs to repeat the value.
public struct SettingValidator: Sendable {
    /// What is accepted, in words: `"one of echo, remote"`.
    public let rule: String
    private let check: @Sendable (SettingValue) -> SettingValue?

    public init(_ rule: String, _ check: @escaping @Sendable (SettingValue) -> SettingValue?) {
        self.rule = rule
        self.check = check
    }

    /// The value to keep, or `nil` when `value` breaks the rule.
    public func validate(_ value: SettingValue) -> SettingValue? {
        check(value)
    }
}

// MARK: - The common rules

extension SettingValidator {
    /// A string from a closed list, matched exactly.
    public static func oneOf(_ allowed: [String]) -> SettingValidator {
        SettingValidator("one of \(allowed.joined(separator: ", "))") { value in
            guard let text = value.string, allowed.contains(text) else { return nil }
            return value
        }
    }

    /// A string with something other than spaces in it; kept as typed.
    public static let nonEmpty = SettingValidator("a non-empty text") { value in
        guard let text = value.string, !text.allSatisfy(\.isWhitespace) else { return nil }
        return value
    }

    /// A finite number inside `range`.
    public static func number(in range: ClosedRange<Double>) -> SettingValidator {
        let rule = "a number from \(SettingValue.number(range.lowerBound)) to \(SettingValue.number(range.upperBound))"
        return SettingValidator(rule) { value in
            guard let number = value.number, number.isFinite, range.contains(number) else { return nil }
            return value
        }
    }

    /// A whole number inside `range` (`0`, `4096`), never a fraction.
    public static func wholeNumber(in range: ClosedRange<Int>) -> SettingValidator {
        SettingValidator("a whole number from \(range.lowerBound) to \(range.upperBound)") { value in
            guard let number = value.number, number.isFinite, number.rounded() == number,
                range.contains(Int(exactly: number) ?? range.lowerBound - 1)
            else { return nil }
            return value
        }
    }

    /// An `http` or `https` URL with a host, such as `http://127.0.0.1:8080/v1`.
    public static let httpURL = SettingValidator("an http:// or https:// URL with a host") { value in
        guard let text = value.string, !text.contains(where: \.isWhitespace),
            let parts = URLComponents(string: text),
            let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = parts.host, !host.isEmpty
        else { return nil }
        return value
    }
}
