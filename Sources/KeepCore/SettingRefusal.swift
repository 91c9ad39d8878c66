/// A field of the settings file that `load` did not accept, and why.
///
/// The app falls back to the default for it (``SettingsStore/isSet(_:)`` is false), and
/// the field stays in the file as the user wrote it, unless it is secret-flagged: a secret
/// never stays in the plain file once the store writes it again.
public struct SettingRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The field's key, as in the file.
    public let key: String
    /// Why it was refused; never the value itself.
    public let reason: String

    /// The refusal of the field `key`, saying why in `reason` (never the value).
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(key): \(reason)" }
}
