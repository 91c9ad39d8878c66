import KeepFileStore
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``FileSystemCalls`` that records every call it passes on, and can fail or "kill" any of
/// them: the witness for tests of the write path, and the fault injector.
///
/// Before each call it asks `plan` what to do with it: `nil` passes it on to `base`;
/// ``Fault/fail(_:)`` throws that errno instead (the call has no effect); ``Fault/kill``
/// stops the writer dead at that call, as `kill -9` would: that call and every later one
/// fail without effect, except `close`, which still runs because the kernel closes a dead
/// process's files (and so releases its locks). Every call is recorded, carried out or not.
package final class RecordingFileSystem: FileSystemCalls {
    /// What to do with one call instead of passing it on.
    package enum Fault: Sendable, Equatable {
        /// The call fails with this errno and has no effect.
        case fail(Int32)
        /// The writer dies at this call.
        case kill
    }

    private let base: any FileSystemCalls
    private let plan: @Sendable (FileSystemCall) -> Fault?
    private let state = Mutex(State())

    private struct State {
        var calls: [FileSystemCall] = []
        var killed = false
    }

    package init(
        over base: any FileSystemCalls = POSIXFileSystem(),
        plan: @escaping @Sendable (FileSystemCall) -> Fault? = { _ in nil }
    ) {
        self.base = base
        self.plan = plan
    }

    /// Every call so far, in order.
    package var calls: [FileSystemCall] { state.withLock { $0.calls } }

    /// Whether a ``Fault/kill`` has happened.
    package var killed: Bool { state.withLock { $0.killed } }

    /// Forgets the calls recorded so far.
    package func reset() { state.withLock { $0.calls = [] } }

    package func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
        try perform(.create(path)) { () throws(StorageError) in try base.create(path, mode: mode) }
    }

    package func open(_ path: String) throws(StorageError) -> OpenFile {
        try perform(.open(path)) { () throws(StorageError) in try base.open(path) }
    }

    package func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        try perform(.tryLock(file.path)) { () throws(StorageError) in try base.tryLock(file) }
    }

    package func linkCount(_ file: OpenFile) throws(StorageError) -> Int {
        try perform(.linkCount(file.path)) { () throws(StorageError) in try base.linkCount(file) }
    }

    package func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        try perform(.write(file.path, count: bytes.count)) { () throws(StorageError) in try base.write(file, bytes) }
    }

    package func flush(_ file: OpenFile) throws(StorageError) {
        try perform(.flush(file.path)) { () throws(StorageError) in try base.flush(file) }
    }

    package func close(_ file: OpenFile) throws(StorageError) {
        try perform(.close(file.path)) { () throws(StorageError) in try base.close(file) }
    }

    package func rename(_ from: String, to: String) throws(StorageError) {
        try perform(.rename(from, to: to)) { () throws(StorageError) in try base.rename(from, to: to) }
    }

    package func flushDirectory(_ path: String) throws(StorageError) {
        try perform(.flushDirectory(path)) { () throws(StorageError) in try base.flushDirectory(path) }
    }

    package func unlink(_ path: String) throws(StorageError) {
        try perform(.unlink(path)) { () throws(StorageError) in try base.unlink(path) }
    }

    package func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) {
        try perform(.makeDirectory(path)) { () throws(StorageError) in try base.makeDirectory(path, mode: mode) }
    }

    package func listDirectory(_ path: String) throws(StorageError) -> [String] {
        try perform(.listDirectory(path)) { () throws(StorageError) in try base.listDirectory(path) }
    }

    package func readFile(_ path: String) throws(StorageError) -> [UInt8] {
        try perform(.readFile(path)) { () throws(StorageError) in try base.readFile(path) }
    }

    package func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
        try perform(.openForAppending(path)) { () throws(StorageError) in try base.openForAppending(path) }
    }

    package func status(_ file: OpenFile) throws(StorageError) -> FileStatus {
        try perform(.status(file.path)) { () throws(StorageError) in try base.status(file) }
    }

    package func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        try perform(.read(file.path, count: count, at: offset)) { () throws(StorageError) in
            try base.read(file, count: count, at: offset)
        }
    }

    package func truncate(_ file: OpenFile, to size: Int) throws(StorageError) {
        try perform(.truncate(file.path, to: size)) { () throws(StorageError) in try base.truncate(file, to: size) }
    }

    package func lock(_ file: OpenFile) throws(StorageError) {
        try perform(.lock(file.path)) { () throws(StorageError) in try base.lock(file) }
    }

    package func openDirectory(_ path: String) throws(StorageError) -> OpenFile {
        try perform(.openDirectory(path)) { () throws(StorageError) in try base.openDirectory(path) }
    }

    package func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus {
        try perform(.statusOfName(directory.path + "/" + name)) { () throws(StorageError) in
            try base.status(of: name, in: directory)
        }
    }

    /// Records `call`, then carries it out, fails it or drops it as the plan and an earlier
    /// kill say.
    private func perform<Result>(
        _ call: FileSystemCall, _ body: () throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        let fault = plan(call)
        let dead = state.withLock { state in
            state.calls.append(call)
            if fault == .kill { state.killed = true }
            return state.killed
        }
        if dead, call.operation != "close" {
            throw StorageError(code: .io, operation: call.operation, path: call.path, reason: "the writer was killed")
        }
        if case .fail(let errno) = fault {
            throw .system(call.operation, path: call.path, errno: errno)
        }
        return try body()
    }
}

/// One call through the seam, as ``RecordingFileSystem`` records it: what and on which path.
package enum FileSystemCall: Sendable, Hashable, CustomStringConvertible {
    case create(String)
    case open(String)
    case tryLock(String)
    case linkCount(String)
    case write(String, count: Int)
    case flush(String)
    case close(String)
    case rename(String, to: String)
    case flushDirectory(String)
    case unlink(String)
    case makeDirectory(String)
    case listDirectory(String)
    case readFile(String)
    case openForAppending(String)
    /// `fstat` of an open file.
    case status(String)
    case read(String, count: Int, at: Int)
    case truncate(String, to: Int)
    /// A waiting lock.
    case lock(String)
    case openDirectory(String)
    /// `fstatat` of a name (its whole path) in an open directory.
    case statusOfName(String)

    /// The call's name: `"create"`, `"flush"`, `"rename"`, ...
    package var operation: String {
        switch self {
        case .create: "create"
        case .open: "open"
        case .tryLock: "tryLock"
        case .linkCount: "linkCount"
        case .write: "write"
        case .flush: "flush"
        case .close: "close"
        case .rename: "rename"
        case .flushDirectory: "flushDirectory"
        case .unlink: "unlink"
        case .makeDirectory: "makeDirectory"
        case .listDirectory: "listDirectory"
        case .readFile: "readFile"
        case .openForAppending: "openForAppending"
        case .status: "status"
        case .read: "read"
        case .truncate: "truncate"
        case .lock: "lock"
        case .openDirectory: "openDirectory"
        case .statusOfName: "statusOfName"
        }
    }

    /// The path the call is about (for a rename, the one it moves).
    package var path: String {
        switch self {
        case .create(let path), .open(let path), .tryLock(let path), .linkCount(let path), .write(let path, _),
            .flush(let path), .close(let path), .rename(let path, _), .flushDirectory(let path), .unlink(let path),
            .makeDirectory(let path), .listDirectory(let path), .readFile(let path), .openForAppending(let path),
            .status(let path), .read(let path, _, _), .truncate(let path, _), .lock(let path), .openDirectory(let path),
            .statusOfName(let path):
            path
        }
    }

    package var description: String {
        switch self {
        case .rename(let from, let to): "rename(\(from) -> \(to))"
        case .write(let path, let count): "write(\(path), \(count) bytes)"
        case .read(let path, let count, let offset): "read(\(path), \(count) bytes at \(offset))"
        case .truncate(let path, let size): "truncate(\(path), to \(size))"
        default: "\(operation)(\(path))"
        }
    }
}
