import KeepPorts
import Testing

/// A string argument of a parameterised test, named in the results with its control
/// characters escaped, so a case holding a NUL or a newline still reads on one line.
struct Text: Sendable, CustomTestStringConvertible {
    let value: String

    init(_ value: String) {
        self.value = value
    }

    var testDescription: String { StorageError.quoted(value) }
}
