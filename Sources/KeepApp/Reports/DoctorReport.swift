/// What `keep doctor` found, check by check (and prints with `--json`).
///
/// ```json
/// { "checks" : [ { "detail" : "/home/me/.local/share/keep exists, and a block written there reached the disk",
///                  "name" : "data root", "status" : "ok" }, … ],
///   "dataRoot" : "/home/me/.local/share/keep",
///   "needsUser" : false }
/// ```
///
/// `status` is `ok`, `note` (worth knowing, nothing to do) or `problem` (something needs
/// the user; `advice`, there only when there is some, says what). `needsUser` is true
/// when any check is a problem, and `keep doctor` then exits 1.
public struct DoctorReport: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable, Equatable {
        case ok, note, problem
    }

    public struct Check: Codable, Sendable, Equatable {
        public let name: String
        public let status: Status
        public let detail: String
        public let advice: String?

        public init(_ name: String, _ status: Status, _ detail: String, advice: String? = nil) {
            self.name = name
            self.status = status
            self.detail = detail
            self.advice = advice
        }
    }

    /// The data root, or `nil` when the environment names none.
    public let dataRoot: String?
    public let checks: [Check]
    public let needsUser: Bool

    public init(dataRoot: String?, checks: [Check]) {
        self.dataRoot = dataRoot
        self.checks = checks
        needsUser = checks.contains { $0.status == .problem }
    }
}
