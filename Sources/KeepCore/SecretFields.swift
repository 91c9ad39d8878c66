/// The fields of secret-flagged settings found in a settings file's text that does not
/// parse, with their values removed: what is moved aside keeps everything the user wrote
/// but the secrets, which never belong in the plain store.
///
/// The text is read as JSON as far as it can be, and with the mistakes a hand edit makes
/// forgiven: a string in single quotes, a key without quotes, a string cut off by the end
/// of the line or of the file. Wherever a secret-flagged key (its escapes decoded) is
/// followed by `:`, the value after it, whatever it is and however far it goes on that line
/// (to its closing quote, or else to the next `,`, `}` or line end), is replaced by
/// ``removed``. Nothing else of the text changes.
enum SecretFields {
    /// What stands in for a removed value: a JSON string, so a text that was JSON stays JSON.
    static let removed = "\"[a secret was here: removed, since keys belong in the keychain]\""

    /// `text` with the value of every field named in `keys` replaced by ``removed``.
    static func removing(_ keys: Set<String>, from text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let start = index
            let name: String?
            if scalars[index] == "\"" || scalars[index] == "'" {
                let token = string(scalars, from: index)
                name = token.value
                index = token.end
            } else if isNameScalar(scalars[index]) {
                while index < scalars.count, isNameScalar(scalars[index]) { index += 1 }
                name = String(String.UnicodeScalarView(scalars[start..<index]))
            } else {
                index += 1
                name = nil
            }
            out.append(contentsOf: scalars[start..<index])
            guard let name, keys.contains(name) else { continue }
            // A key only when a colon follows it.
            var colon = index
            while colon < scalars.count, scalars[colon] == " " || scalars[colon] == "\t" { colon += 1 }
            guard colon < scalars.count, scalars[colon] == ":" else { continue }
            var value = colon + 1
            while value < scalars.count, scalars[value] == " " || scalars[value] == "\t" { value += 1 }
            out.append(contentsOf: scalars[index..<value])
            let end: Int
            if value < scalars.count, scalars[value] == "\"" || scalars[value] == "'" {
                end = string(scalars, from: value).end
            } else {
                var cursor = value
                while cursor < scalars.count, !",}\n\r".unicodeScalars.contains(scalars[cursor]) { cursor += 1 }
                end = cursor
            }
            if value < scalars.count { out.append(contentsOf: removed.unicodeScalars) }
            index = end
        }
        return String(out)
    }

    /// The string token starting at `start` (its opening quote): its value with escapes
    /// decoded, and where it ends (after the closing quote, or at the line's or text's end).
    private static func string(_ scalars: [Unicode.Scalar], from start: Int) -> (value: String, end: Int) {
        let quote = scalars[start]
        var value = String.UnicodeScalarView()
        var index = start + 1
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == quote { return (String(value), index + 1) }
            if scalar == "\n" || scalar == "\r" { break }
            if scalar == "\\", index + 1 < scalars.count {
                let escaped = scalars[index + 1]
                index += 2
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r", "b", "f": break
                case "u":
                    let digits = String(String.UnicodeScalarView(scalars[index..<min(index + 4, scalars.count)]))
                    if digits.count == 4, let code = UInt32(digits, radix: 16), let decoded = Unicode.Scalar(code) {
                        value.append(decoded)
                        index += 4
                    }
                default: value.append(escaped)
                }
                continue
            }
            value.append(scalar)
            index += 1
        }
        return (String(value), index)
    }

    /// A character of a key written without quotes.
    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$"
    }
}
