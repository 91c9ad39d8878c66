import Foundation
import KeepApp

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Standard input, output and error, when the parent closed them (`keep ask hi <&-`), are
// opened on /dev/null before anything else can open a file: the next file opened would take
// the lowest free descriptor, and a question would be read from (or an answer written to)
// whatever that is. `open` takes the lowest free descriptor, so each lands where it belongs.
for (descriptor, mode) in [(STDIN_FILENO, O_RDONLY), (STDOUT_FILENO, O_WRONLY), (STDERR_FILENO, O_WRONLY)]
where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
    _ = open("/dev/null", mode)
}

// The signals keep relies on, set explicitly rather than inherited: a parent may have
// blocked or ignored them. Ctrl-C and kill end keep unless a command handles them; a
// reader that goes away is an error to handle (EPIPE), not a reason to die mid-turn.
var signals = sigset_t()
sigemptyset(&signals)
for number in [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE] {
    sigaddset(&signals, number)
}
pthread_sigmask(SIG_UNBLOCK, &signals, nil)
for number in [SIGINT, SIGTERM, SIGQUIT, SIGHUP] {
    signal(number, SIG_DFL)
}
signal(SIGPIPE, SIG_IGN)

// The environment is read here, once, and handed down as a value.
let launchVariables = ProcessInfo.processInfo.environment
// Before any thread or key: no core dump of a key, no proxy between keep and this machine.
let console = Console(noColor: !(launchVariables["NO_COLOR"] ?? "").isEmpty)
for problem in ProcessGuard.harden() { console.warning(problem) }

// A long one-time migration shows its progress in place, on a terminal only.
let progress: (@Sendable (String?) -> Void)? =
    isatty(STDERR_FILENO) == 1 ? { @Sendable line in console.err("\r\u{1B}[K" + (line ?? "")) } : nil
let composition = Composition(environment: LaunchEnvironment(launchVariables), progress: progress) { line in
    console.error(line)
}
exit(await Keep.run(Array(CommandLine.arguments.dropFirst()), composition: composition, console: console))
