import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine a run measured: what the figures depend on, printed above every table.
struct Machine: Sendable, Codable {
    /// Processors the process may use.
    let cpus: Int
    /// The processor's model name, where the system says it (`/proc/cpuinfo` on Linux).
    let cpuModel: String?
    let memoryGiB: Int
    /// `Linux 6.1.0-18-amd64`.
    let kernel: String
    /// The file system the run worked on: `ext4 on /dev/vda`, `tmpfs on tmpfs`, `apfs`.
    let fileSystem: String

    /// This machine, with the file system that holds `directory`.
    init(directory: String) {
        cpus = ProcessInfo.processInfo.activeProcessorCount
        memoryGiB = Int((Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824).rounded())
        kernel = Self.kernel()
        cpuModel = Self.cpuModel()
        fileSystem = Self.fileSystemType(directory)
    }

    /// One line: `2 CPUs (Intel Xeon), 24 GiB, Linux 6.1.0, ext4`.
    var summary: String {
        let model = cpuModel.map { " (\($0))" } ?? ""
        return "\(cpus) CPUs\(model), \(memoryGiB) GiB, \(kernel), \(fileSystem)"
    }

    private static func kernel() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "unknown kernel" }
        let system = withUnsafeBytes(of: name.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(system) \(release)"
    }

    private static func cpuModel() -> String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
    }

    /// The type of the file system holding `path`, by name, and its source on Linux.
    private static func fileSystemType(_ path: String) -> String {
        #if canImport(Darwin)
            var status = statfs()
            guard statfs(path, &status) == 0 else { return "unknown file system" }
            return withUnsafeBytes(of: status.f_fstypename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #else
            // Linux says a mount's type in /proc/self/mountinfo: the mount point is the fifth
            // field, and the type and source follow the lone "-". The longest mount point that
            // holds the path is the one it is on.
            guard let resolved = realpath(path, nil) else { return "unknown file system" }
            defer { free(resolved) }
            let target = String(cString: resolved)
            guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
                return "unknown file system"
            }
            var best: (point: String, type: String)?
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 2 < fields.count else { continue }
                // Spaces and the like in a mount point are written as octal escapes.
                let point = fields[4].replacingOccurrences(of: "\\040", with: " ")
                let holds = point == "/" || target == point || target.hasPrefix(point + "/")
                if holds, point.count >= (best?.point.count ?? -1) {
                    best = (point, "\(fields[dash + 1]) on \(fields[dash + 2])")
                }
            }
            return best?.type ?? "unknown file system"
        #endif
    }
}
