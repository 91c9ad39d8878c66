import Foundation
import KeepTestSupport
import Testing

/// A network namespace of the test's own, with the TEST-NET address 192.0.2.1 on its
/// loopback device: a host that is not loopback for keep, reachable without leaving the
/// machine (the namespace has no other device, so nothing in it reaches any other address).
///
/// A holder process (`unshare -n`, then waiting on a pipe) keeps the namespace alive; ``listen(_:)``
/// makes a socket inside it from a thread that enters it for the moment (`setns` changes
/// the namespace of the calling thread only), and ``launcher`` starts keep inside it
/// (`nsenter --net`). The holder is killed when the value goes.
final class NetworkNamespace: Sendable {
    /// The TEST-NET-1 address the namespace's loopback device holds.
    static let address = "192.0.2.1"

    /// Why a namespace cannot be made here (`unshare -n` refused: not root, or a sandbox
    /// that forbids it), or `nil` when it can.
    static let unavailable: String? = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-n", "true"]
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
        } catch {
            return "unshare cannot be started: \(error)"
        }
        let status = probe.waitForExit()
        return status == 0 ? nil : "unshare -n is not permitted here (exit \(status)); needs root or CAP_SYS_ADMIN"
    }()

    private let holder: Process
    /// The holder's standard input: closed (or written to) only when the value goes.
    private let lifeline: Pipe

    /// Makes the namespace and waits until its loopback device is up with ``address``.
    init() throws {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // It waits on its standard input, a pipe only this value holds: it lives exactly as
        // long as the value (however slowly a loaded machine runs the test), and ends by
        // itself if the test process dies (the pipe closes).
        holder.arguments = [
            "-n", "/bin/sh", "-c",
            "ip addr add \(Self.address)/32 dev lo && ip link set lo up && echo ready && exec head -c 1",
        ]
        let ready = Pipe()
        let lifeline = Pipe()
        holder.standardOutput = ready
        holder.standardInput = lifeline
        try holder.run()
        self.holder = holder
        self.lifeline = lifeline
        let line = String(decoding: ready.fileHandleForReading.readData(ofLength: 6), as: UTF8.self)
        guard line == "ready\n" else {
            holder.terminate()
            throw SandboxFailure("the network namespace was not set up (holder said \(String(reflecting: line)))")
        }
    }

    /// The namespace, as `nsenter` names it.
    var path: String { "/proc/\(holder.processIdentifier)/ns/net" }

    /// Starts a program inside the namespace: `nsenter --net=<path> --` before it.
    var launcher: [String] { ["/usr/bin/nsenter", "--net=\(path)", "--"] }

    /// Runs `make` (which opens listening sockets) on a thread of its own inside the
    /// namespace; the sockets stay there when the thread leaves.
    func listen<T: Sendable>(_ make: @escaping @Sendable () throws -> T) async throws -> T {
        let path = self.path
        return try await withCheckedThrowingContinuation { done in
            Thread {
                let target = open(path, O_RDONLY | O_CLOEXEC)
                let home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
                defer {
                    if target >= 0 { close(target) }
                    if home >= 0 { close(home) }
                }
                guard target >= 0, home >= 0, Self.enter(target) else {
                    done.resume(throwing: SpawnFailure(what: "setns into \(path)", code: errno))
                    return
                }
                let made = Result { try make() }
                // Back home before the thread ends (a thread's exit with another namespace is
                // harmless, but nothing else should ever run on it there).
                _ = Self.enter(home)
                done.resume(with: made)
            }.start()
        }
    }

    /// setns(2), which the Swift Glibc module does not import: looked up in libc by name.
    private static func enter(_ descriptor: Int32) -> Bool {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET, from <sched.h>
        guard let symbol = dlsym(nil, "setns") else { return false }
        return unsafeBitCast(symbol, to: SetNS.self)(descriptor, cloneNewNet) == 0
    }

    deinit {
        holder.terminate()
        _ = holder.waitForExit()
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only where a test may make a network namespace of its own, saying why not elsewhere.
    static var needsNetworkNamespace: Self {
        .enabled(
            if: NetworkNamespace.unavailable == nil,
            "needs a network namespace of its own (unshare -n as root or with CAP_SYS_ADMIN), which this machine refuses"
        )
    }
}
