/// Which `keep` this is: the version `keep --version` prints and `keep version --json`
/// reports, with the chat format it writes.
public enum KeepVersion {
    /// The release, as `MAJOR.MINOR.PATCH`; raised with every release.
    public static let text = "0.2.0"
}
