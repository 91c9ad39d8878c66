/// A failure of the bench itself: an argument it cannot use, or a step of a scenario's
/// set-up that failed, saying which and where.
///
/// Storage and secrets failures keep their own typed errors (``KeepPorts/StorageError``,
/// ``KeepPorts/SecretsError``); this covers what has no port: the command line, SQLite and
/// libcrypto in the baselines, and the run's own directory. A description never holds a
/// value the bench wrote.
struct BenchError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable, Equatable {
        /// The command line asks for something the bench cannot do (exit status 2).
        case usage
        /// A baseline's library (SQLite, libcrypto) answered with an error.
        case library
        /// The run could not set itself up: its directory, a child process.
        case setup
    }

    let code: Code
    /// What was being done: `"--repetitions"`, `"sqlite3_step"`, `"mkdtemp"`.
    let operation: String
    /// What went wrong, in words; never a stored value.
    let detail: String

    init(_ code: Code, _ operation: String, _ detail: String) {
        self.code = code
        self.operation = operation
        self.detail = detail
    }

    static func usage(_ operation: String, _ detail: String) -> BenchError {
        BenchError(.usage, operation, detail)
    }

    var description: String { "\(operation): \(detail)" }
}
