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
package struct DoctorReport: Codable, Sendable, Equatable {
    /// How a check came out.
    package enum Status: String, Codable, Sendable, Equatable {
        /// `ok`: as it should be; `note`: worth knowing, nothing to do; `problem`:
        /// something needs the user.
        case ok, note, problem
    }

    /// One check: what was looked at, how it came out, and what to do when it is a problem.
    package struct Check: Codable, Sendable, Equatable {
        /// What was checked: `data root`, `keychain`.
        package let name: String
        /// How it came out.
        package let status: Status
        /// What was found, in one line.
        package let detail: String
        /// What to do, when there is something to do.
        package let advice: String?

        /// The check `name`, with `status` and `detail`, and `advice` when the user can
        /// act.
        package init(_ name: String, _ status: Status, _ detail: String, advice: String? = nil) {
            self.name = name
            self.status = status
            self.detail = detail
            self.advice = advice
        }
    }

    /// The data root, or `nil` when the environment names none.
    package let dataRoot: String?
    /// Every check, in the order they ran.
    package let checks: [Check]
    /// Whether any check is a problem: `keep doctor` then exits 1.
    package let needsUser: Bool

    /// The report of `checks` under `dataRoot`; ``needsUser`` follows from the checks.
    package init(dataRoot: String?, checks: [Check]) {
        self.dataRoot = dataRoot
        self.checks = checks
        needsUser = checks.contains { $0.status == .problem }
    }
}
