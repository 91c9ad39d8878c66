import Dispatch
import KeepFileStore
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Strict turns for writers running at once on threads of their own: one seam call each,
/// round robin, so two writers' calls interleave the same way on every run.
///
/// One token goes round. A writer waits for it before each call (``Calls`` does that) and
/// hands it to the next writer still running after the call; a writer that is done
/// (``finish(_:)``) is skipped. It waits only in a seam call, so it needs writers that
/// block nowhere else: a writer that waits on another outside the seam (a group commit's
/// follower waiting for its leader) would hold up the round, and wants
/// ``Workload/Interleaving/free`` instead.
final class Lockstep: Sendable {
    private let turns: [DispatchSemaphore]
    private let state: Mutex<(holder: Int, done: Set<Int>)>

    init(writers: Int) {
        turns = (0..<writers).map { _ in DispatchSemaphore(value: 0) }
        state = Mutex((holder: 0, done: []))
        turns[0].signal()
    }

    /// Waits until it is `writer`'s turn.
    func wait(_ writer: Int) {
        turns[writer].wait()
    }

    /// Hands the turn on from `writer`, after its call.
    func pass(_ writer: Int) {
        let holder = state.withLock { state in
            state.holder = successor(of: writer, done: state.done)
            return state.holder
        }
        turns[holder].signal()
    }

    /// `writer` makes no more calls: its turns go to the others.
    func finish(_ writer: Int) {
        let holder: Int? = state.withLock { state -> Int? in
            state.done.insert(writer)
            guard state.holder == writer, state.done.count < turns.count else { return nil }
            state.holder = successor(of: writer, done: state.done)
            return state.holder
        }
        if let holder { turns[holder].signal() }
    }

    /// The first writer after `writer`, round the ring, that is not done; `writer` itself
    /// when it is the only one left.
    private func successor(of writer: Int, done: Set<Int>) -> Int {
        for step in 1...turns.count {
            let candidate = (writer + step) % turns.count
            if !done.contains(candidate) { return candidate }
        }
        return writer
    }

    /// One writer's calls, each made in its turn.
    struct Calls: FileSystemCalls {
        let base: any FileSystemCalls
        let lockstep: Lockstep
        let writer: Int

        func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
            try turn { () throws(StorageError) in try base.create(path, mode: mode) }
        }

        func open(_ path: String) throws(StorageError) -> OpenFile {
            try turn { () throws(StorageError) in try base.open(path) }
        }

        func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
            try turn { () throws(StorageError) in try base.tryLock(file) }
        }

        func linkCount(_ file: OpenFile) throws(StorageError) -> Int {
            try turn { () throws(StorageError) in try base.linkCount(file) }
        }

        func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
            try turn { () throws(StorageError) in try base.write(file, bytes) }
        }

        func flush(_ file: OpenFile) throws(StorageError) {
            try turn { () throws(StorageError) in try base.flush(file) }
        }

        func close(_ file: OpenFile) throws(StorageError) {
            try turn { () throws(StorageError) in try base.close(file) }
        }

        func rename(_ from: String, to: String) throws(StorageError) {
            try turn { () throws(StorageError) in try base.rename(from, to: to) }
        }

        func flushDirectory(_ path: String) throws(StorageError) {
            try turn { () throws(StorageError) in try base.flushDirectory(path) }
        }

        func unlink(_ path: String) throws(StorageError) {
            try turn { () throws(StorageError) in try base.unlink(path) }
        }

        func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) {
            try turn { () throws(StorageError) in try base.makeDirectory(path, mode: mode) }
        }

        func listDirectory(_ path: String) throws(StorageError) -> [String] {
            try turn { () throws(StorageError) in try base.listDirectory(path) }
        }

        func readFile(_ path: String) throws(StorageError) -> [UInt8] {
            try turn { () throws(StorageError) in try base.readFile(path) }
        }

        func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
            try turn { () throws(StorageError) in try base.openForAppending(path) }
        }

        func status(_ file: OpenFile) throws(StorageError) -> FileStatus {
            try turn { () throws(StorageError) in try base.status(file) }
        }

        func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
            try turn { () throws(StorageError) in try base.read(file, count: count, at: offset) }
        }

        func truncate(_ file: OpenFile, to size: Int) throws(StorageError) {
            try turn { () throws(StorageError) in try base.truncate(file, to: size) }
        }

        /// A waiting lock, in turns: tried once a turn until it is free, so a writer waiting
        /// for it never holds up the round (and the holder, in its turns, gets to release it).
        func lock(_ file: OpenFile) throws(StorageError) {
            while !(try turn({ () throws(StorageError) in try base.tryLock(file) })) {}
        }

        func openDirectory(_ path: String) throws(StorageError) -> OpenFile {
            try turn { () throws(StorageError) in try base.openDirectory(path) }
        }

        func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus {
            try turn { () throws(StorageError) in try base.status(of: name, in: directory) }
        }

        private func turn<Result>(_ call: () throws(StorageError) -> Result) throws(StorageError) -> Result {
            lockstep.wait(writer)
            defer { lockstep.pass(writer) }
            return try call()
        }
    }
}
