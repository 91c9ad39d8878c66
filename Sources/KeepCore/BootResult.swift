/// How a boot ended: an app ready to use, or a failure the app shows on its crash
/// screen with the real detail, instead of starting and silently doing nothing.
public enum BootResult: Sendable {
    /// The settings loaded: the app can start.
    case ready(AppCore)
    /// The app cannot start: `reason` to switch on, and `detail`, the underlying error's
    /// text, to show.
    case failed(reason: Reason, detail: String)

    /// Why a boot failed.
    public enum Reason: String, Sendable, Equatable {
        /// The store could not be reached or written (refused, full, broken).
        case storageUnavailable = "storage_unavailable"
    }
}
