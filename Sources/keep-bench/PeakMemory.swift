import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The peak resident memory of one whole process, from the kernel's own account of it
/// (`wait4`'s `ru_maxrss`), so no other child of the bench is counted.
enum PeakMemory {
    /// Runs `executable` with `arguments` and `environment`, its output to `/dev/null`, and
    /// answers its exit status and peak resident memory in KiB.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, kibibytes: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard started == 0 else {
            throw BenchError(.setup, "launch", "cannot start \(executable): \(String(cString: strerror(started)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw BenchError(.setup, "wait", "cannot wait for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, Int(usage.ru_maxrss))
    }
}
