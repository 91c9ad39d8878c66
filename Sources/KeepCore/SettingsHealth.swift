/// Whether the settings file could be read, for the app to show (`keep doctor`), and what
/// becomes of it when it could not.
///
/// A file the store cannot read is never written over with defaults. The app runs on
/// the defaults, in memory only, and the file stays exactly as it was until the user
/// changes a setting; then a file of text is first moved aside (copied, with the value of
/// every secret-flagged field removed, to its own id in the `settings` namespace), and only
/// after that copy is stored is a new file written. A file that is not text at all (bytes
/// that are not UTF-8, a symbolic link, a FIFO, a file keep may not read) cannot be moved
/// aside through a port of strings: no setting is changed until it is fixed or removed.
public enum SettingsHealth: Sendable, Equatable, CustomStringConvertible {
    /// No file yet, or the file was read. Single fields it refused are in
    /// ``SettingsStore/refusals``.
    case fine
    /// The file is text, but not a JSON object; the defaults are in use, the file is
    /// untouched, and the next change moves it aside and replaces it.
    case unreadable(reason: String)
    /// The file cannot be read as text at all (see the type's contract); the defaults are in
    /// use, the file is untouched, and a change is refused until it is fixed or removed.
    case refused(reason: String)
    /// The unreadable file was moved aside to `settings`/`id` (without its secret fields)
    /// when a setting changed, and a new file holding the user's changes took its place.
    case keptAside(id: String, reason: String)

    public var description: String {
        switch self {
        case .fine:
            "the settings file is fine"
        case .unreadable(let reason):
            "the settings file is unreadable (\(reason)); keep uses the defaults, and the next change of a setting "
                + "moves the file aside (to settings/\(SettingsStore.asideIdPrefix)<time>, its secret fields removed) "
                + "and replaces it"
        case .refused(let reason):
            "the settings file cannot be read (\(reason)); keep uses the defaults, and changes no setting until the "
                + "file is fixed or removed"
        case .keptAside(let id, let reason):
            "the settings file was unreadable (\(reason)); it was moved aside to settings/\(id) (its secret fields "
                + "removed) and replaced by a new one holding your change"
        }
    }
}
