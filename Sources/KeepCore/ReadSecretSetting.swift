import KeepPorts

/// The keychain value of the secret-flagged setting `key`, or `nil` when none is stored or
/// the stored value is empty.
///
/// It takes the whole ``/KeepPorts/SecretsPort``, which only the composition root and the engines
/// hold; the ``SettingsFacade`` a screen is given cannot reach it. An empty value comes
/// back `nil` because an empty key is how `Authorization: Bearer ` gets sent.
///
/// Throws ``SettingsError/unknownKey(_:)`` or ``SettingsError/notSecret(_:)`` for a key
/// that names no secret setting in `defs`, and ``SettingsError/secrets(_:)`` when the
/// keychain cannot be reached (never `nil` for that).
public func readSecretSetting(
    secrets: any SecretsPort, defs: [SettingDef], key: String
)
    async throws(SettingsError) -> String?
{
    guard let def = defs.first(where: { $0.key == key }) else { throw .unknownKey(key) }
    guard let ref = def.secretRef else { throw .notSecret(key) }
    return try await readSecret(secrets: secrets, ref: ref)
}

/// The value under `ref`, trimmed as `keep key set` trims (``KeyText/trimmed(_:)``: a key
/// another tool stored with a trailing newline is used without it), or `nil` when none is
/// stored or it is empty; the one place that rule lives. Throws
/// ``SettingsError/secrets(_:)`` when the keychain cannot be reached.
public func readSecret(secrets: any SecretsPort, ref: SecretRef) async throws(SettingsError) -> String? {
    let value: String?
    do {
        value = try await secrets.get(ref)
    } catch {
        throw .secrets(error)
    }
    guard let value else { return nil }
    let key = KeyText.trimmed(value)
    return key.isEmpty ? nil : key
}
