import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A broken write path, built at the seam: the store's own code runs unchanged, and a
/// wrapper between it and the ``SimulatedDisk`` changes what its calls do, as a store with
/// that mistake would have done. The power-cut test must catch every one.
enum WriteMutant: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The temp file's flush is dropped: the rename can reach the disk before the bytes.
    case noTempFlush = "no fsync of the temp file"
    /// The directory's flush is dropped: an acknowledged rename or unlink can be lost.
    case noDirectoryFlush = "no fsync of the directory"
    /// The directory's flush after a value's file is unlinked (and before anything else
    /// flushes it) is dropped: an acknowledged removal can come back.
    case noFlushAfterRemove = "no fsync of the directory after a removal"
    /// The value is written over the target itself (`O_TRUNC`, write, flush) at the rename,
    /// instead of to a temp file that is renamed.
    case writeInPlace = "writing in place"
    /// Every writer uses one temp name, `.keep-tmp-shared`, opened create-or-truncate (as a
    /// writer with a fixed temp name must, or its own leftover would stop it).
    case sharedTempName = "one shared temp name"
    /// Temp files are named without the leading dot, so their names are valid ids.
    case tempListed = "temp files listed"
    /// A flush that fails with `EIO` is tried again, and its success believed. Only a disk
    /// whose flush fails (``SimulatedDisk/failFlushes(_:)``) can catch it.
    case flushRetried = "a failed fsync retried"
    /// An append's flushes are dropped: an acknowledged line can be lost.
    case appendNotFlushed = "no fsync of an appended line"
    /// The flush after an unfinished last line is cut is dropped: a power cut can bring bytes
    /// of the cut tail back inside the new line, a whole line of garbage.
    case cutNotFlushed = "no fsync of the cut of an unfinished line"
    /// The cut of an unfinished last line is dropped: the line lands after the garbage.
    case tailKept = "an unfinished last line not cut"
    /// Appenders and writers take no lock: a line can land in a file a rename just replaced.
    /// Only a race can catch it, never a power cut.
    case noAppendLock = "appends and writes without the lock"

    /// The mutants a power cut on a disk that never fails must catch: all but ``flushRetried``
    /// and ``noAppendLock``.
    static let caughtByAPowerCut = allCases.filter { $0 != .flushRetried && $0 != .noAppendLock }

    var testDescription: String { rawValue }

    /// A writer's calls to `disk`, broken this way; each writer gets its own.
    func calls(over disk: SimulatedDisk) -> any FileSystemCalls {
        MutatedCalls(disk: disk, mutant: self)
    }

    static func isTemp(_ path: String) -> Bool {
        (SimulatedDisk.split(path)?.name ?? "").hasPrefix(".keep-tmp-")
    }
}

/// The wrapper that carries a ``WriteMutant`` out.
private final class MutatedCalls: ForwardingFileSystemCalls {
    let disk: SimulatedDisk
    var base: any FileSystemCalls { disk }
    let mutant: WriteMutant
    /// For ``WriteMutant/writeInPlace``: the bytes written so far to each temp the store
    /// thinks it has, by its name, and the next stand-in descriptor (negative: never a disk's).
    private let deferred = Mutex<(next: Int32, temps: [String: [UInt8]])>((next: -1, temps: [:]))
    /// For ``WriteMutant/noFlushAfterRemove``: directories with a value unlinked since their
    /// last flush.
    private let removedIn = Mutex<Set<String>>([])
    /// For the append mutants: descriptors opened for appending, and those cut since their
    /// last flush.
    private let appending = Mutex<(open: Set<Int32>, cut: Set<Int32>)>((open: [], cut: []))

    init(disk: SimulatedDisk, mutant: WriteMutant) {
        self.disk = disk
        self.mutant = mutant
    }

    func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
        guard WriteMutant.isTemp(path) else { return try disk.create(path, mode: mode) }
        switch mutant {
        case .writeInPlace:
            // No temp on the disk: a stand-in that gathers the bytes until the "rename".
            let descriptor = deferred.withLock { state in
                defer { state.next -= 1 }
                state.temps[path] = []
                return state.next
            }
            return OpenFile(descriptor: descriptor, path: path)
        case .sharedTempName:
            return try disk.openTruncating(mapped(path))
        default:
            return try disk.create(mapped(path), mode: mode)
        }
    }

    func open(_ path: String) throws(StorageError) -> OpenFile { try disk.open(mapped(path)) }

    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        isStandIn(file) ? true : try disk.tryLock(file)
    }

    func linkCount(_ file: OpenFile) throws(StorageError) -> Int {
        isStandIn(file) ? 1 : try disk.linkCount(file)
    }

    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        if isStandIn(file) {
            deferred.withLock { $0.temps[file.path, default: []] += bytes }
        } else {
            try disk.write(file, bytes)
        }
    }

    func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
        let file = try disk.openForAppending(path)
        appending.withLock { _ = $0.open.insert(file.descriptor) }
        return file
    }

    func truncate(_ file: OpenFile, to size: Int) throws(StorageError) {
        if mutant == .tailKept { return }
        try disk.truncate(file, to: size)
        appending.withLock { _ = $0.cut.insert(file.descriptor) }
    }

    func lock(_ file: OpenFile) throws(StorageError) {
        if mutant == .noAppendLock { return }
        try disk.lock(file)
    }

    func flush(_ file: OpenFile) throws(StorageError) {
        if isStandIn(file) || (mutant == .noTempFlush && WriteMutant.isTemp(file.path)) { return }
        let (appended, cut) = appending.withLock { state in
            (state.open.contains(file.descriptor), state.cut.remove(file.descriptor) != nil)
        }
        if appended && (mutant == .appendNotFlushed || (mutant == .cutNotFlushed && cut)) { return }
        do {
            try disk.flush(file)
        } catch let error where mutant == .flushRetried && error.errno == EIO {
            try disk.flush(file)
        }
    }

    func close(_ file: OpenFile) throws(StorageError) {
        appending.withLock { state in
            state.open.remove(file.descriptor)
            state.cut.remove(file.descriptor)
        }
        if isStandIn(file) {
            deferred.withLock { $0.temps[file.path] = nil }
        } else {
            try disk.close(file)
        }
    }

    func rename(_ from: String, to: String) throws(StorageError) {
        guard mutant == .writeInPlace, WriteMutant.isTemp(from) else { return try disk.rename(mapped(from), to: to) }
        // The store's rename of its temp becomes the in-place write: truncate the target,
        // write the bytes, flush them.
        let bytes = deferred.withLock { $0.temps[from] ?? [] }
        let target = try disk.openTruncating(to)
        try disk.write(target, bytes)
        try disk.flush(target)
        try disk.close(target)
    }

    func flushDirectory(_ path: String) throws(StorageError) {
        if mutant == .noDirectoryFlush { return }
        if mutant == .noFlushAfterRemove, removedIn.withLock({ $0.remove(path) != nil }) { return }
        try disk.flushDirectory(path)
    }

    func unlink(_ path: String) throws(StorageError) {
        if mutant == .writeInPlace, WriteMutant.isTemp(path) { return }
        try disk.unlink(mapped(path))
        if mutant == .noFlushAfterRemove, !WriteMutant.isTemp(path), let (directory, _) = SimulatedDisk.split(path) {
            removedIn.withLock { _ = $0.insert(directory) }
        }
    }

    func readFile(_ path: String) throws(StorageError) -> [UInt8] { try disk.readFile(mapped(path)) }

    /// Where this mutant puts a temp file the store names `path`.
    private func mapped(_ path: String) -> String {
        guard WriteMutant.isTemp(path), let (directory, name) = SimulatedDisk.split(path) else { return path }
        switch mutant {
        case .sharedTempName: return SimulatedDisk.join(directory, ".keep-tmp-shared")
        case .tempListed: return SimulatedDisk.join(directory, String(name.dropFirst()))
        default: return path
        }
    }

    private func isStandIn(_ file: OpenFile) -> Bool {
        mutant == .writeInPlace && file.descriptor < 0
    }
}
