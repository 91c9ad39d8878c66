import Foundation
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one rule for "is this host this machine?": decided by where a connection to it
/// goes, never by how the name is spelled.
///
/// A name is resolved by keep itself (`getaddrinfo`, the system's resolver, as a connection
/// would be), and it is this machine only when it resolves and every address it resolves
/// to is a loopback address (127.0.0.0/8, `::1`, or `::ffff:127.x.x.x`). A request that
/// relies on that answer is then sent to that address (``Resolution/thisMachine(address:)``),
/// not to the name, so a resolver cannot answer loopback to the check and another machine
/// to the connection. So `localhost` is this machine where the system resolves it to
/// loopback (`/etc/hosts`), and `localhost.`, `LocalHost.` or `127.evil.example` are this
/// machine only if they too resolve to loopback alone; a name that does not resolve is not.
///
/// The cleartext rule (``CleartextRule``), the redirect rule (every request a redirect
/// leads to goes through the same cleartext rule) and `keep doctor` all decide by it.
package enum ThisMachine {
    /// Where a host goes.
    package enum Resolution: Equatable, Sendable {
        /// Every address is loopback: connect to `address` (numeric, an IPv6 one without
        /// brackets), the first IPv4 one when there is one.
        case thisMachine(address: String)
        /// At least one address is not loopback: these, numeric, in the resolver's order.
        case elsewhere(addresses: [String])
        /// The name does not resolve: the resolver's reason, in words.
        case unresolved(reason: String)

        /// Whether a connection to the host stays on this machine.
        package var isThisMachine: Bool {
            if case .thisMachine = self { return true }
            return false
        }
    }

    /// Whether `address`, a numeric IPv4 or IPv6 address (without brackets), is a
    /// loopback address; `false` for anything that is not a numeric address.
    package static func isLoopback(address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        let isOne = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedLoopback =
            bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        return isOne || isMappedLoopback
    }

    /// Where `host` (a name, or a numeric address; an IPv6 one without brackets) goes:
    /// resolved with `getaddrinfo` on a thread of its own (a `DedicatedThread`: a wait that
    /// may last gets a thread for its length), so a slow resolver holds no thread of Swift's
    /// pool. Cancelling the calling task stops the wait (the lookup itself ends by the
    /// resolver's own timeout, and its thread with it) and answers
    /// ``Resolution/unresolved(reason:)``.
    package static func resolve(_ host: String) async -> Resolution {
        let waiter = Waiter()
        let thread = DedicatedThread(name: "keep.resolve")
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.set(continuation)
                Task(executorPreference: thread) {
                    waiter.resume(with: lookUp(host))
                    thread.stop()
                }
            }
        } onCancel: {
            waiter.resume(with: .unresolved(reason: "the lookup was cancelled"))
        }
    }

    /// `getaddrinfo(host)`, every address checked: the blocking half of ``resolve(_:)``.
    static func lookUp(_ host: String) -> Resolution {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            // EAI_SYSTEM says why in errno; every other code has its words in gai_strerror.
            let reason =
                status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .unresolved(reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            if let address = numeric(current.pointee), !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .unresolved(reason: "it resolves to no address") }
        guard addresses.allSatisfy(isLoopback(address:)) else { return .elsewhere(addresses: addresses) }
        // IPv4 first: an address connected to by its number, IPv4 needs no brackets.
        let first = addresses.first { !$0.contains(":") } ?? addresses[0]
        return .thisMachine(address: first)
    }

    /// The numeric text of one resolved address (`inet_ntop`), or `nil` for a family that
    /// is neither IPv4 nor IPv6.
    private static func numeric(_ entry: addrinfo) -> String? {
        guard let socketAddress = entry.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch entry.ai_family {
        case AF_INET:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return nil }
        case AF_INET6:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A continuation resumed once: by the lookup, or by a cancellation, whichever comes first.
    private final class Waiter: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<Resolution, Never>?, early: Resolution?)>(
            (nil, nil))

        func set(_ continuation: CheckedContinuation<Resolution, Never>) {
            let early = state.withLock { state -> Resolution? in
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        func resume(with resolution: Resolution) {
            let continuation = state.withLock { state -> CheckedContinuation<Resolution, Never>? in
                defer { state.continuation = nil }
                if state.continuation == nil, state.early == nil { state.early = resolution }
                return state.continuation
            }
            continuation?.resume(returning: resolution)
        }
    }
}
