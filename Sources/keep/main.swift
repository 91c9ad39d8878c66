import Foundation
import KeepApp

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
let console = Console(noColor: !(launchVariables["NO_COLOR"] ?? "").isEmpty)
let composition = Composition(environment: LaunchEnvironment(launchVariables)) { line in
    console.error(line)
}
exit(await Keep.run(Array(CommandLine.arguments.dropFirst()), composition: composition, console: console))
