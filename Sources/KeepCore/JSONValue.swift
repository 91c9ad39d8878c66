import Foundation

/// Any JSON value, so a hand-edited settings file can be read field by field and the
/// fields the app does not know can be written back as they were.
enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Flags before numbers: the decoder refuses to read `true` as a number and `1`
        // as a flag, so the order only saves a failed attempt.
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object(let fields): try container.encode(fields)
        }
    }

    init(_ value: SettingValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        }
    }

    /// The setting value this is, or `nil` for `null`, arrays and objects.
    var scalar: SettingValue? {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .null, .array, .object: nil
        }
    }

    /// `text` parsed as a JSON object; throws, saying why, when it is not one (never
    /// quoting the text).
    static func object(parsing text: String) throws(NotAnObject) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw NotAnObject(reason: "not valid JSON")
        }
        guard case .object(let fields) = value else {
            throw NotAnObject(reason: "not a JSON object")
        }
        // The decoder reads deeper than the encoder writes: a file it could load but never
        // write back would make every later change fail, so it is refused whole instead.
        guard value.depth <= maximumDepth else {
            throw NotAnObject(reason: "nested deeper than \(maximumDepth) levels")
        }
        return fields
    }

    /// How deep a settings file may nest: far beyond any real one, well within what the
    /// encoder can write back.
    static let maximumDepth = 64

    /// How many arrays and objects deep this value goes; a scalar is 0.
    var depth: Int {
        switch self {
        case .null, .bool, .number, .string: 0
        case .array(let items): 1 + (items.map(\.depth).max() ?? 0)
        case .object(let fields): 1 + (fields.values.map(\.depth).max() ?? 0)
        }
    }

    /// Why a text is not a JSON object.
    struct NotAnObject: Error {
        let reason: String
    }

    /// `fields` as a pretty-printed JSON object, keys sorted, slashes left readable, one
    /// trailing newline: a file a person can edit and a diff can compare. Throws only for
    /// a number JSON cannot hold (infinity, NaN), which nothing accepted can be.
    static func text(of fields: [String: JSONValue]) throws -> String {
        // The encoder prints an empty object over three lines; a person expects `{}`.
        if fields.isEmpty { return "{}\n" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValue.object(fields)), as: UTF8.self) + "\n"
    }
}
