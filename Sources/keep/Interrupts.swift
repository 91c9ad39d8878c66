import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C (`SIGINT`) turned from "end the process" into a call to the handler the command
/// sets for the moment: cancel the answer that is streaming, say how to quit at the
/// prompt, put the terminal back before leaving.
///
/// Made only by a command that handles Ctrl-C; every other command keeps the default
/// action, so Ctrl-C simply stops it. The signal is delivered through a dispatch source,
/// so the handler runs as ordinary code on a queue of its own, not in a signal handler.
final class Interrupts: Sendable {
    private let handler: Mutex<@Sendable () -> Void>
    private let source: Mutex<any DispatchSourceSignal>

    /// Starts handling `SIGINT` with `handler`.
    init(_ handler: @escaping @Sendable () -> Void) {
        self.handler = Mutex(handler)
        // Ignored as a signal, so its default action no longer ends the process; the
        // dispatch source still hears it.
        signal(SIGINT, SIG_IGN)
        source = Mutex(
            DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "keep.interrupts")))
        source.withLock { source in
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.handler.withLock { $0 }()
            }
            source.resume()
        }
    }

    /// Makes `handler` the one a Ctrl-C calls from now on.
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        self.handler.withLock { $0 = handler }
    }

    deinit {
        source.withLock { $0.cancel() }
        signal(SIGINT, SIG_DFL)
    }
}
