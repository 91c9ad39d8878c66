import KeepTestSupport

/// The house's walls over the source tree: how blocking work leaves Swift's pool, what a
/// library an Apple platform would use may call, and a public API that can grow.
enum HouseWall {
    static let all: [SourceWall] = [
        blockingWorkThroughTwoMechanisms, portableLibrariesUseNoLinuxOnlyAPI, errorCodesAreGrowable,
    ]

    // MARK: - Blocking work

    /// The two ways blocking work leaves the pool, each named in its own doc comment.
    static let mechanisms = ["Sources/KeepPorts/DedicatedThread.swift", "Sources/KeepFileStore/IOThreads.swift"]
    /// The tools that are no part of the app: the benchmark's writers are raw threads (its
    /// baseline), the test support reads its children's output on queues of its own.
    static let tools = ["Sources/keep-bench/", "Sources/keep-torture/", "Sources/KeepTestSupport/"]

    static let blockingWorkThroughTwoMechanisms = SourceWall(
        rule: "blocking work leaves Swift's pool only through DedicatedThread or IOThreads: no other thread or queue",
        violations: { files in
            files.filter { file in
                !mechanisms.contains(file.path) && !tools.contains { file.isUnder($0) }
            }.flatMap { file in
                file.matches(
                    #"(\bThread\s*[({]|\bdetachNewThread\b|\bpthread_create\b|\.async(?:After)?\s*[({]|\bDispatchQueue\.global\b|\bOperationQueue\s*\()"#
                ).map { "\(file.path) makes work run on \($0.trimmingCharacters(in: .whitespaces))" }
            }
        },
        breach: [
            SourceFile(
                path: "Sources/KeepSQLite/Backup.swift",
                text: "let queue = DispatchQueue(label: \"backup\")\nqueue.async { copy() }\n"),
            SourceFile(path: "Sources/KeepSealed/Wait.swift", text: "Thread { wait() }.start()\n"),
        ])

    // MARK: - Portability

    /// The libraries an iOS or macOS app would use: every library product but the Secret
    /// Service's (which is Linux's keychain, and Linux-only in the manifest).
    static let portableTargets: Set = [
        "KeepPorts", "KeepFileStore", "KeepSQLite", "KeepSealed", "KeepConformance", "KeepCore",
    ]

    /// What Linux has and Darwin does not (or names differently), as patterns, with what each is.
    static let linuxOnly: [(pattern: String, what: String)] = [
        (#"\bst_[amc]tim\b"#, "Linux's name of a stat time (Darwin's is st_mtimespec)"),
        (#"(?m)^\s*(?:@\w+\s+)*(?:\w+\s+)?import\s+(?:Glibc|Musl)\b"#, "Linux's C library"),
        (#"\bFoundationNetworking\b"#, "Linux's URLSession module"),
        (
            #"\b(?:prctl|epoll_\w+|inotify_\w+|signalfd|eventfd|statx|renameat2|sendfile|syncfs|pipe2|accept4|dup3|sched_getaffinity|fallocate|posix_fadvise)\b"#,
            "a Linux-only system call"
        ),
        (#"\b(?:O_TMPFILE|O_PATH|O_NOATIME|MADV_DONTDUMP|SOCK_CLOEXEC|SOCK_NONBLOCK)\b"#, "a Linux-only flag"),
    ]

    /// What iOS does not have at all, whatever the branch: a child process.
    static let notOnIOS: [(pattern: String, what: String)] = [
        (
            #"(?:\bFoundation\.Process\b|(?<![\w.])Process\s*\(|:\s*Process\b|\bposix_spawn\w*|\bfork\s*\(|\bexecv\w*\s*\()"#,
            "a child process, which iOS does not allow"
        )
    ]

    static let portableLibrariesUseNoLinuxOnlyAPI = SourceWall(
        rule:
            "a portable library uses no Linux-only API outside an #if os(Linux) or canImport(Glibc) branch with a Darwin branch, and starts no process",
        violations: { files in
            var found: [String] = []
            var scanned = 0
            for file in files where portableTargets.contains(file.target) && file.isUnder("Sources/") {
                scanned += 1
                let branches = PlatformBranches(file.code)
                for (pattern, what) in linuxOnly {
                    for line in branches.lines(matching: pattern) where !branches.isLinuxWithDarwinSibling(line) {
                        found.append("\(file.path):\(line + 1) uses \(what) outside a Linux branch with a Darwin one")
                    }
                }
                for (pattern, what) in notOnIOS {
                    for line in branches.lines(matching: pattern) {
                        found.append("\(file.path):\(line + 1) uses \(what)")
                    }
                }
            }
            return scanned == 0 ? ["no portable library found: the scan is not looking"] : found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepFileStore/Stamp.swift",
                text: "let seconds = info.st_mtim.tv_sec\n"),
            SourceFile(path: "Sources/KeepPorts/Libc.swift", text: "#if canImport(Glibc)\n    import Glibc\n#endif\n"),
            SourceFile(
                path: "Sources/KeepConformance/Tool.swift",
                text: "let process = Process()\nprocess.executableURL = URL(fileURLWithPath: \"/bin/true\")\n"),
        ])

    // MARK: - A public API that can grow

    /// The library products, whose public API an app is built against.
    static let libraryTargets = portableTargets.union(["KeepSecretService"])

    static let errorCodesAreGrowable = SourceWall(
        rule:
            "no library product declares a public enum of errors, codes or reasons: each is a growable struct, so a new one breaks no client's switch",
        violations: { files in
            var found: [String] = []
            var growable = 0
            for file in files where libraryTargets.contains(file.target) && file.isUnder("Sources/") {
                for name in file.matches(#"\bpublic\s+(?:indirect\s+)?enum\s+(\w*(?:Error|Code|Reason))\b"#) {
                    found.append("\(file.path) declares the public enum \(name)")
                }
                growable += file.matches(#"\bpublic\s+struct\s+(?:Code|Reason)\b"#).count
            }
            return growable == 0 ? ["no growable code found: the scan is not looking"] : found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepPorts/QuotaError.swift",
                text: "public enum QuotaError: Error {\n    case exceeded\n}\n"),
            SourceFile(
                path: "Sources/KeepSQLite/BackupError.swift",
                text: "public struct BackupError: Error {\n    public enum Code: String { case full }\n}\n"),
        ])
}
