/// How a boot ended: an app ready to use, or a failure the app shows on its crash
/// screen with the real detail, instead of starting and silently doing nothing.
public enum BootResult: Sendable {
    /// The settings loaded: the app can start.
    case ready(AppCore)
    /// The app cannot start: `reason` to switch on, and `detail`, the underlying error's
    /// text, to show.
    case failed(reason: Reason, detail: String)

    /// Why a boot failed.
    ///
    /// Growable: a struct over a private enum, so a later version may add one as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case storageUnavailable = "storage_unavailable"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The reason's name, as the crash screen shows it: `storage_unavailable`.
        public var description: String { base.rawValue }

        /// The store could not be reached or written (refused, full, broken).
        public static let storageUnavailable = Reason(.storageUnavailable)
    }
}
