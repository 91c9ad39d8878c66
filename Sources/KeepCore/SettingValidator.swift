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

    /// The rule `rule` (in words, as an error shows it), enforced by `check`, which answers
    /// the value to keep or `nil` to refuse.
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

    /// A server address as ``ServerURLRule`` accepts it, such as `http://127.0.0.1:8080/v1`:
    /// http or https, a host, a port from 1 to 65535 if any, no user, password, query or
    /// fragment. The refusal names the rule and never repeats the value (it may hold a password).
    public static let httpURL = SettingValidator(ServerURLRule.rule) { value in
        guard let text = value.string, ServerURLRule.problem(in: text) == nil else { return nil }
        return value
    }

    /// Host names or addresses separated by commas (`gpu-box.lan, 192.168.1.20`), or
    /// nothing: letters, digits, `.`, `-`, `_`, or an IPv6 address without brackets; no
    /// scheme, port or path.
    public static let hostList = SettingValidator(
        "host names separated by commas (such as gpu-box.lan, 192.168.1.20), without scheme or port, or nothing"
    ) { value in
        guard let text = value.string else { return nil }
        let hosts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if hosts == [""] { return .string("") }
        let name = Set("abcdefghijklmnopqrstuvwxyz0123456789.-_")
        let ipv6 = Set("0123456789abcdef:.")
        // A name or IPv4 address, or an IPv6 address (two colons at least, hex digits only).
        func isHost(_ host: String) -> Bool {
            let lowered = host.lowercased()
            if lowered.contains(":") {
                return lowered.filter { $0 == ":" }.count >= 2 && lowered.allSatisfy(ipv6.contains)
            }
            return !lowered.isEmpty && lowered.allSatisfy(name.contains)
        }
        guard hosts.allSatisfy(isHost) else { return nil }
        return .string(hosts.map { $0.lowercased() }.joined(separator: ", "))
    }
}
