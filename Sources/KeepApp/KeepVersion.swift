import KeepEngines

/// Which `keep` this is: the version `keep --version` prints and `keep version --json`
/// reports, with the chat format it writes.
package enum KeepVersion {
    /// The release, as `MAJOR.MINOR.PATCH`; raised with every release.
    package static let text = "0.3.0"

    /// `keep/<version>`: the `User-Agent` of every request keep sends.
    package static var userAgent: String { EdgePolicy.userAgent(version: text) }
}
