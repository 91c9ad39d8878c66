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
/// action, so Ctrl-C simply stops it. The signal's own handler only writes a byte to a
/// pipe; the handler the command set runs as ordinary code on a queue of its own, woken
/// by that byte.
///
/// A real handler, not an ignored signal heard by a dispatch signal source: on Linux such
/// a source reads the signal through `signalfd`, and any thread that does not block it
/// (the main thread, waiting in `sigsuspend` under Swift's async main, does not) may take
/// an ignored signal first and drop it, so a Ctrl-C under load was sometimes lost. A
/// handler runs on whichever thread takes the signal.
final class Interrupts: Sendable {
    private let handler: Mutex<@Sendable () -> Void>
    private let source: Mutex<(any DispatchSourceRead)?>
    /// The pipe the signal's handler writes to, and the source reads.
    private let wake: (read: Int32, write: Int32)

    /// Starts handling `SIGINT` with `handler`. Without a pipe (no descriptor left) Ctrl-C
    /// keeps its default action and ends keep.
    init(_ handler: @escaping @Sendable () -> Void) {
        self.handler = Mutex(handler)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            wake = (-1, -1)
            source = Mutex(nil)
            return
        }
        wake = (ends[0], ends[1])
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let read = ends[0]
        source = Mutex(
            DispatchSource.makeReadSource(fileDescriptor: read, queue: DispatchQueue(label: "keep.interrupts")))
        source.withLock { source in
            source?.setEventHandler { [weak self] in
                // Every byte waiting is one Ctrl-C; those that came together are one.
                var byte: UInt8 = 0
                var any = false
                while Interrupts.readByte(read, &byte) { any = true }
                guard any, let self else { return }
                self.handler.withLock { $0 }()
            }
            source?.resume()
        }
        interruptPipe.store(ends[1], ordering: .sequentiallyConsistent)
        signal(SIGINT, interruptArrived)
    }

    /// Makes `handler` the one a Ctrl-C calls from now on.
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Starts `operation` as a task that Ctrl-C cancels from this call on (until the handler
    /// is replaced). A Ctrl-C that comes while the task is being made cancels it as soon as
    /// it exists: none falls between the start of an answer, which may already be showing,
    /// and the handler that stops it.
    func cancelling<Success: Sendable>(
        _ operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        let pending = PendingCancel()
        onInterrupt { pending.interrupt() }
        let task = Task(operation: operation)
        pending.attach { task.cancel() }
        return task
    }

    deinit {
        guard wake.read >= 0 else { return }
        signal(SIGINT, SIG_DFL)
        interruptPipe.store(-1, ordering: .sequentiallyConsistent)
        source.withLock { $0?.cancel() }
        close(wake.write)
        close(wake.read)
    }

    /// One byte read from `descriptor` into `byte`; false at none (the pipe is non-blocking).
    private static func readByte(_ descriptor: Int32, _ byte: inout UInt8) -> Bool {
        read(descriptor, &byte, 1) == 1
    }
}

/// A cancellation asked for before or after there is something to cancel: whichever of
/// ``interrupt()`` and ``attach(_:)`` comes second calls the cancel.
private final class PendingCancel: Sendable {
    private let state = Mutex<(interrupted: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

    func interrupt() {
        let cancel = state.withLock { state in
            state.interrupted = true
            return state.cancel
        }
        cancel?()
    }

    func attach(_ cancel: @escaping @Sendable () -> Void) {
        let interrupted = state.withLock { state in
            state.cancel = cancel
            return state.interrupted
        }
        if interrupted { cancel() }
    }
}

/// The write end of the pipe of the ``Interrupts`` handling Ctrl-C now, or -1: a signal
/// handler can reach nothing but a global.
private let interruptPipe = Atomic<Int32>(-1)

/// `SIGINT`'s handler: one byte to the pipe (`write` is safe in a signal handler; a full
/// pipe already holds a Ctrl-C waiting to be handled).
private func interruptArrived(_: Int32) {
    let saved = errno
    var byte: UInt8 = 1
    let descriptor = interruptPipe.load(ordering: .sequentiallyConsistent)
    if descriptor >= 0 { _ = write(descriptor, &byte, 1) }
    errno = saved
}
