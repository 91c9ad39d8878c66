import Foundation
import KeepPorts

/// One setting the app knows: its key, its default, how a screen shows it, what it accepts,
/// and, for a secret, the keychain slot that holds it.
///
/// The default fixes the kind (text, number or flag). A secret-flagged def (one with a
/// ``secretRef``) never has a value row: its value lives only in the ``/KeepPorts/SecretsPort`` under
/// that ref, and the settings store refuses to hold it. Its ``defaultValue`` is required by
/// the type but never stored and never shown.
public struct SettingDef: Sendable, Identifiable {
    /// The name in the settings file and on the command line: `engineId`.
    public let key: String
    /// What the app uses while the user has not chosen.
    public let defaultValue: SettingValue
    /// A short name for a settings screen: `"Engine"`.
    public let label: String
    /// One or two sentences that say what the setting does.
    public let help: String
    /// The group a screen shows it under.
    public let section: String
    /// What the setting accepts beyond its kind; `nil` accepts any value of the kind.
    public let validator: SettingValidator?
    /// Where a secret-flagged setting lives in the keychain; `nil` for a plain setting.
    public let secretRef: SecretRef?

    /// The setting `key`, of the kind `defaultValue` has; a `secretRef` makes it
    /// secret-flagged, its value only ever in the keychain.
    public init(
        key: String, defaultValue: SettingValue, label: String, help: String, section: String,
        validator: SettingValidator? = nil, secretRef: SecretRef? = nil
    ) {
        self.key = key
        self.defaultValue = defaultValue
        self.label = label
        self.help = help
        self.section = section
        self.validator = validator
        self.secretRef = secretRef
    }

    public var id: String { key }

    /// True when the value belongs in the keychain and never in the settings file.
    public var isSecret: Bool { secretRef != nil }

    /// The kind every value of this setting has: the kind of its default.
    public var kind: SettingValue.Kind { defaultValue.kind }

    /// What this setting accepts, in words, for an error or a help screen.
    public var rule: String {
        validator?.rule ?? "a \(kind == .string ? "text" : kind.rawValue)"
    }

    /// The value to keep for `value`, after coercing it to this setting's kind, or a
    /// ``SettingsError`` saying why it is refused.
    ///
    /// Coercion is what a hand-edited file and a command line need: the text `"1.5"`
    /// becomes the number 1.5 for a number setting, `"true"`/`"false"` a flag for a flag
    /// setting. An empty text is always accepted for a text setting, without the
    /// validator: it means "no choice", and the store never lets it outrank a default.
    /// A secret-flagged setting accepts nothing here (``SettingsError/secretKey(_:)``).
    public func accept(_ value: SettingValue) throws(SettingsError) -> SettingValue {
        if isSecret { throw .secretKey(key) }
        let coerced: SettingValue?
        switch (kind, value) {
        case (.string, .string(let text)) where text.isEmpty:
            return value
        case (.string, .string), (.number, .number), (.bool, .bool):
            coerced = value
        case (.number, .string(let text)):
            coerced = Double(text.trimmingCharacters(in: .whitespaces)).map(SettingValue.number)
        case (.bool, .string(let text)):
            switch text.trimmingCharacters(in: .whitespaces) {
            case "true": coerced = .bool(true)
            case "false": coerced = .bool(false)
            default: coerced = nil
            }
        default:
            coerced = nil
        }
        guard let coerced, coerced.number?.isFinite ?? true else {
            throw .refused(key: key, reason: "\(key) must be \(rule)")
        }
        guard let validator else { return coerced }
        guard let kept = validator.validate(coerced) else {
            throw .refused(key: key, reason: "\(key) must be \(rule)")
        }
        return kept
    }
}
