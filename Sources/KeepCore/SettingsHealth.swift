/// Whether the settings file could be read, for the app to show (`keep doctor`).
///
/// A file the store cannot read is never written over with defaults. The app runs on
/// the defaults, in memory only, and the file stays exactly as it was until the user
/// changes a setting; then it is first copied aside, whole, to its own id in the
/// `settings` namespace, and only after that copy is stored is a new file written.
public enum SettingsHealth: Sendable, Equatable, CustomStringConvertible {
    /// No file yet, or the file was read. Single fields it refused are in
    /// ``SettingsStore/refusals``.
    case fine
    /// The file is not a JSON object, or cannot be read at all (a symbolic link, never
    /// followed; a file keep may not read); the defaults are in use and the file is untouched.
    case unreadable(reason: String)
    /// The unreadable file was copied to `settings`/`id` when a setting changed, and a new
    /// file holding the user's changes took its place.
    case keptAside(id: String, reason: String)

    public var description: String {
        switch self {
        case .fine:
            "the settings file is fine"
        case .unreadable(let reason):
            "the settings file is unreadable (\(reason)); using the defaults, and the file is left as it is"
        case .keptAside(let id, let reason):
            "the settings file was unreadable (\(reason)); it was kept aside as settings/\(id)"
        }
    }
}
