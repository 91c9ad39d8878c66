import KeepCore

/// A setting's value in a report, written as the JSON type it is: text, number or flag.
package enum ReportValue: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Text, written as a JSON string.
    case string(String)
    /// A number, written as a JSON number.
    case number(Double)
    /// A flag, written as `true` or `false`.
    case bool(Bool)

    /// The report's form of a setting's `value`, of the same kind.
    package init(_ value: SettingValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        }
    }

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        }
    }

    /// As a person would type it: `echo`, `0.7`, `true`.
    package var description: String {
        switch self {
        case .string(let text): SettingValue.string(text).description
        case .number(let number): SettingValue.number(number).description
        case .bool(let flag): SettingValue.bool(flag).description
        }
    }
}
