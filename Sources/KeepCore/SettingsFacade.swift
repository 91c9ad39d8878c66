import KeepPorts

/// What a settings screen is handed: everything it needs to show and change settings,
/// and no way at all to read a secret back.
///
/// Each question goes to the store (``isSet(_:)`` is the store's answer, never a constant,
/// so a default never passes for a choice). A secret setting shows only whether it is
/// configured; reading its value takes the whole ``/KeepPorts/SecretsPort``, which a screen is not
/// given (``readSecretSetting(secrets:defs:key:)``).
public struct SettingsFacade: Sendable {
    private let store: SettingsStore

    /// The facade on `store`; it hands out nothing that reads a secret.
    public init(_ store: SettingsStore) {
        self.store = store
    }

    /// Every setting, in display order.
    public var defs: [SettingDef] { store.defs }
    /// How the settings file was found, for a warning row.
    public var health: SettingsHealth { store.health }
    /// The fields of the file that were not used, for a warning row.
    public var refusals: [SettingRefusal] { store.refusals }
    /// How the keychain protects secret settings, shown honestly next to them.
    public var secretProtection: SecretProtection { store.secretProtection }

    /// The value loaded or set for `key`, which may be empty; `nil` when there is none.
    public func get(_ key: String) -> SettingValue? { store.get(key) }
    /// Whether `key` holds a deliberate choice; asks the store every time.
    public func isSet(_ key: String) -> Bool { store.isSet(key) }
    /// The value in use for `key`: the choice, else the default; `nil` for a secret.
    public func value(_ key: String) -> SettingValue? { store.value(key) }

    /// Changes a plain setting; see ``SettingsStore/set(_:_:)``.
    public func set(_ key: String, _ value: SettingValue) async throws(SettingsError) {
        try await store.set(key, value)
    }

    /// Puts a plain setting back to its default; see ``SettingsStore/unset(_:)``.
    public func unset(_ key: String) async throws(SettingsError) {
        try await store.unset(key)
    }

    /// Stores a secret setting's value in the keychain.
    public func setSecret(_ key: String, _ value: String) async throws(SettingsError) {
        try await store.setSecret(key, value)
    }

    /// Removes a secret setting's value from the keychain.
    public func clearSecret(_ key: String) async throws(SettingsError) {
        try await store.clearSecret(key)
    }

    /// Whether a secret setting is configured; never loads its value.
    public func hasSecret(_ key: String) async throws(SettingsError) -> Bool {
        try await store.hasSecret(key)
    }

    /// Calls `listener` with the key of every change.
    public func subscribe(_ listener: @escaping @Sendable (String) -> Void) -> SettingsStore.Subscription {
        store.subscribe(listener)
    }

    /// Stops calling a listener.
    public func unsubscribe(_ subscription: SettingsStore.Subscription) {
        store.unsubscribe(subscription)
    }
}
