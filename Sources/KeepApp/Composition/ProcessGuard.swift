import Foundation
import KeepEngines

#if canImport(CProcess)
    internal import CProcess
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `keep` does to its own process at start-up, before any thread starts and before
/// any key is read (every command may read one): a key in its memory never lands in a
/// core file, a request to this machine never goes through a proxy, and URLSession
/// creates nothing outside the data root.
///
/// - No core dump: `prctl(PR_SET_DUMPABLE, 0)` (Linux), which also keeps other processes
///   of the same user from attaching a debugger or reading its memory through /proc, and
///   the core size limit set to 0 (`setrlimit(RLIMIT_CORE)`), which holds on any POSIX system.
/// - No proxy for loopback: libcurl (under FoundationNetworking) reads `http_proxy` and
///   `https_proxy` itself and ignores a session's proxy settings, so the loopback hosts
///   (`localhost`, 127.0.0.0/8, ::1) are added to `no_proxy` and `NO_PROXY`, after what the
///   user had there. A proxy is still used for every other host. (A request the cleartext
///   rule found to be for this machine goes to the loopback address the name resolved to,
///   which these entries cover.)
/// - Nothing outside the data root: URLSession's shared cookie storage and URL cache are
///   made where they can create nothing (``SessionConfiguration/makeSharedStorageInert()``).
package enum ProcessGuard {
    /// The hosts added to `no_proxy`.
    static let loopbackHosts = ["localhost", "127.0.0.0/8", "::1"]

    /// Applies both; answers a line for each step that failed (keep goes on, and says so).
    package static func harden() -> [String] {
        var problems: [String] = []
        if let problem = forbidCoreDumps() { problems.append(problem) }
        bypassProxiesForLoopback()
        SessionConfiguration.makeSharedStorageInert()
        return problems
    }

    /// Makes the process not dumpable and its core size limit 0; a failure in words.
    static func forbidCoreDumps() -> String? {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
            let resource = RLIMIT_CORE
        #endif
        guard setrlimit(resource, &none) == 0 else {
            return "cannot turn core dumps off (setrlimit RLIMIT_CORE: \(String(cString: strerror(errno))))"
        }
        #if canImport(CProcess)
            guard keep_prctl_set_not_dumpable() == 0 else {
                return "cannot make keep undumpable (prctl PR_SET_DUMPABLE: \(String(cString: strerror(errno))))"
            }
        #endif
        return nil
    }

    /// Whether this process can dump core: `nil` when it cannot (not dumpable where the
    /// system has that, and a core size limit of 0), else why it can.
    package static func coreDumpExposure() -> String? {
        var limit = rlimit()
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
            let resource = RLIMIT_CORE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return "the core size limit cannot be read" }
        if limit.rlim_cur != 0 { return "the core size limit is not 0" }
        #if canImport(CProcess)
            let dumpable = keep_prctl_get_dumpable()
            if dumpable != 0 { return dumpable < 0 ? "whether it is dumpable cannot be read" : "it is dumpable" }
        #endif
        return nil
    }

    /// Appends the loopback hosts to `no_proxy` and `NO_PROXY` (libcurl reads the first
    /// that is set), keeping what either held.
    static func bypassProxiesForLoopback() {
        let environment = ProcessInfo.processInfo.environment
        var entries: [String] = []
        for name in ["no_proxy", "NO_PROXY"] {
            for entry in (environment[name] ?? "").split(whereSeparator: { $0 == "," || $0 == " " })
            where !entries.contains(String(entry)) {
                entries.append(String(entry))
            }
        }
        for host in loopbackHosts where !entries.contains(host) { entries.append(host) }
        let value = entries.joined(separator: ",")
        setenv("no_proxy", value, 1)
        setenv("NO_PROXY", value, 1)
    }
}
