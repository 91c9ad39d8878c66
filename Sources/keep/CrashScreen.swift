import KeepCore

/// What `keep` shows when it cannot start because its store cannot be reached: the real
/// detail, and what to do, instead of a prompt that would silently save nothing.
enum CrashScreen {
    /// The screen for a boot that failed with `reason` and `detail`, under `root` (when the
    /// environment names one).
    static func text(reason: BootResult.Reason, detail: String, root: String?) -> String {
        let advice =
            root.map {
                """
                  Check \($0):
                  it must be a directory you can read and write, on a disk with free space.
                """
            } ?? "  Set XDG_DATA_HOME or HOME to an absolute path."
        return """
            keep: cannot start: \(reason)

              \(detail)

              keep could not reach its store, so it stopped rather than run without saving
              anything; nothing was changed.
            \(advice)
              Then run keep again; `keep doctor` checks the rest.

            """
    }
}
