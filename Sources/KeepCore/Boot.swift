import KeepPorts

/// Starts the app core on `storage` and `secrets`: loads the settings, unguarded, and
/// turns a failure to reach the store into ``BootResult/failed(reason:detail:)`` with
/// ``BootResult/Reason/storageUnavailable`` and the error's own words.
///
/// A settings file that is merely unreadable does not fail the boot: the app starts on
/// the defaults and ``SettingsStore/health`` says what happened. The engine is the
/// user's last choice (``AppCore/engineKey``) when one is set, else `defaultEngine`.
/// Failures after boot (listing chats, say) are the caller's to show where they happen.
public func boot(
    storage: any StoragePort, secrets: any SecretsPort, defs: [SettingDef], defaultEngine: String
) async
    -> BootResult
{
    let settings = SettingsStore(storage: storage, secrets: secrets, defs: defs)
    do {
        try await settings.load()
    } catch {
        return .failed(reason: .storageUnavailable, detail: error.description)
    }
    let engineId = settings.chosenStringOr(AppCore.engineKey, defaultEngine)
    return .ready(AppCore(settings: settings, chats: ChatRepository(storage: storage), engineId: engineId))
}
