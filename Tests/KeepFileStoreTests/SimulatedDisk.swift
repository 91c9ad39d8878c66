import Foundation
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A disk in memory behind the file store's seam, which knows what a power cut would keep.
///
/// It holds two views. The *volatile* view is what every call sees, as the page cache is
/// on a real machine. The *durable* view is what is on the medium, and only two calls
/// reach it: `flush` of a file copies that file's bytes and size there, and
/// `flushDirectory` copies that directory's pending entry changes there (names created,
/// renamed, unlinked, directories made), in the order they were made. A file's flush never
/// makes its name durable, and a directory's flush never makes a file's bytes durable.
///
/// Everything else is *pending*, and a power cut may keep any part of it, as far as a real
/// file system allows (``CrashStates`` enumerates the choices): each entry change whole or
/// not at all (a rename is atomic), each ``sectorSize``-byte sector written since the
/// file's last flush new or old (zeros past the old end), and the file's size any it had
/// since that flush. That covers appends and truncation alike: a file cut and then written
/// past its cut may come back at its old size, with old bytes in the sectors not written
/// through, until a flush.
///
/// After every call, failed ones included, it records a ``Record``: what the call was and a
/// ``Snapshot`` of the durable view and what was pending. A test cuts the power after any
/// call of a workload, however concurrent writers interleaved, by taking that snapshot.
///
/// Not modelled, because the store never does it: a rename across directories (refused
/// with `EXDEV`), removing a directory, modes (accepted and ignored).
final class SimulatedDisk: FileSystemCalls {
    /// How many bytes one sector holds: small, so a value of a few dozen bytes spans
    /// several, and a write can land in part.
    let sectorSize: Int
    private let machine: Mutex<Machine>
    /// Where a waiting ``lock(_:)`` sleeps until a close releases a lock.
    private let released = NSCondition()

    /// One call as the disk saw it, and the disk right after it.
    struct Record: Sendable {
        let call: String
        let snapshot: Snapshot
    }

    /// An empty disk: only `/`.
    init(sectorSize: Int = 16) {
        self.sectorSize = sectorSize
        machine = Mutex(Machine(image: DiskImage(directories: ["/": [:]], files: [:])))
    }

    /// A disk holding `image` in both views, as the machine finds it when the power
    /// comes back: nothing pending, no file open, no lock held.
    init(image: DiskImage, sectorSize: Int) {
        self.sectorSize = sectorSize
        machine = Mutex(Machine(image: image))
    }

    /// Every call since the disk was made or last ``settle()``d, each with the disk after it.
    var records: [Record] { machine.withLock { $0.records } }

    /// The disk before the first of ``records``.
    var start: Snapshot { machine.withLock { $0.start } }

    /// How many calls have been made since the disk was made or last settled.
    var callCount: Int { machine.withLock { $0.records.count } }

    /// Makes everything durable, as a clean shutdown's `sync` would, and starts the record
    /// afresh from there.
    func settle() {
        machine.withLock { machine in
            machine.durable = machine.volatile
            machine.pending = []
            machine.inodes = machine.inodes.mapValues { inode in
                var inode = inode
                inode.flush()
                return inode
            }
            machine.records = []
            machine.start = machine.snapshot
        }
    }

    /// Makes the next `count` flushes of a file with unsynced bytes fail with `EIO` the way
    /// Linux fails them: the bytes not yet on the medium are lost for good but still read
    /// back, and a later flush of that file succeeds without writing them.
    func failFlushes(_ count: Int = 1) {
        machine.withLock { $0.flushFailures += count }
    }

    /// The names in `directory` in the volatile view, sorted; empty when it does not exist.
    func names(in directory: String) -> [String] {
        machine.withLock { ($0.volatile[directory] ?? [:]).keys.sorted() }
    }

    // MARK: - The seam

    func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
        try perform(FileSystemCall.create(path).description) { machine throws(StorageError) in
            try machine.create(path)
        }
    }

    func open(_ path: String) throws(StorageError) -> OpenFile {
        try perform(FileSystemCall.open(path).description) { machine throws(StorageError) in
            try machine.openExisting(path, writable: false)
        }
    }

    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        try perform(FileSystemCall.tryLock(file.path).description) { machine throws(StorageError) in
            let inode = try machine.handle(file, "flock").inode
            if let holder = machine.locks[inode], holder != file.descriptor { return false }
            machine.locks[inode] = file.descriptor
            return true
        }
    }

    func linkCount(_ file: OpenFile) throws(StorageError) -> Int {
        try perform(FileSystemCall.linkCount(file.path).description) { machine throws(StorageError) in
            let inode = try machine.handle(file, "fstat").inode
            return machine.volatile.values.reduce(0) { count, entries in
                count + entries.values.filter { $0 == .file(inode) }.count
            }
        }
    }

    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        try perform(FileSystemCall.write(file.path, count: bytes.count).description) { machine throws(StorageError) in
            let handle = try machine.handle(file, "write")
            guard handle.writable else { throw .system("write", path: file.path, errno: EBADF) }
            machine.inodes[handle.inode]?.append(bytes)
        }
    }

    func flush(_ file: OpenFile) throws(StorageError) {
        try perform(FileSystemCall.flush(file.path).description) { machine throws(StorageError) in
            let inode = try machine.handle(file, "fsync").inode
            if machine.flushFailures > 0, machine.inodes[inode]?.isUnsynced == true {
                // Linux on a failed write-back: the error is reported once, the unwritten pages
                // are marked clean (the page cache still shows them; the medium never will).
                machine.flushFailures -= 1
                machine.inodes[inode]?.loseUnsynced()
                throw .system("fsync", path: file.path, errno: EIO)
            }
            machine.inodes[inode]?.flush()
        }
    }

    func close(_ file: OpenFile) throws(StorageError) {
        try perform(FileSystemCall.close(file.path).description) { machine throws(StorageError) in
            if machine.directoryHandles.removeValue(forKey: file.descriptor) != nil { return }
            let inode = try machine.handle(file, "close").inode
            machine.handles[file.descriptor] = nil
            if machine.locks[inode] == file.descriptor { machine.locks[inode] = nil }
        }
        // A lock may have been released: every waiting `lock` looks again.
        released.lock()
        released.broadcast()
        released.unlock()
    }

    func rename(_ from: String, to: String) throws(StorageError) {
        try perform(FileSystemCall.rename(from, to: to).description) { machine throws(StorageError) in
            try machine.rename(from, to: to)
        }
    }

    func flushDirectory(_ path: String) throws(StorageError) {
        try perform(FileSystemCall.flushDirectory(path).description) { machine throws(StorageError) in
            guard machine.volatile[path] != nil else {
                throw .system("open", path: path, errno: machine.lookup(path) == nil ? ENOENT : ENOTDIR)
            }
            // This directory's changes reach the medium, in the order they were made; every
            // other directory's stay pending.
            let (flushed, others) = machine.pending.partitioned { $0.directory == path }
            for change in flushed { change.apply(to: &machine.durable) }
            machine.pending = others
        }
    }

    func unlink(_ path: String) throws(StorageError) {
        try perform(FileSystemCall.unlink(path).description) { machine throws(StorageError) in
            guard let (parent, name) = Self.split(path), let entry = machine.volatile[parent]?[name] else {
                throw .system("unlink", path: path, errno: ENOENT)
            }
            guard entry != .directory else { throw .system("unlink", path: path, errno: EISDIR) }
            machine.change(PendingChange(directory: parent, change: .unlink(name)))
        }
    }

    func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) {
        try perform(FileSystemCall.makeDirectory(path).description) { machine throws(StorageError) in
            guard let (parent, name) = Self.split(path) else { throw .system("mkdir", path: path, errno: EEXIST) }
            guard machine.volatile[parent] != nil else { throw .system("mkdir", path: path, errno: ENOENT) }
            guard machine.volatile[parent]?[name] == nil else { throw .system("mkdir", path: path, errno: EEXIST) }
            machine.change(PendingChange(directory: parent, change: .link(name, .directory)))
        }
    }

    func listDirectory(_ path: String) throws(StorageError) -> [String] {
        try perform(FileSystemCall.listDirectory(path).description) { machine throws(StorageError) in
            guard let entries = machine.volatile[path] else {
                throw .system("open", path: path, errno: machine.lookup(path) == nil ? ENOENT : ENOTDIR)
            }
            return entries.keys.sorted()
        }
    }

    func readFile(_ path: String) throws(StorageError) -> [UInt8] {
        try perform(FileSystemCall.readFile(path).description) { machine throws(StorageError) in
            switch machine.lookup(path) {
            case nil: throw .system("open", path: path, errno: ENOENT)
            case .directory?:
                throw StorageError(code: .corrupt, operation: "read", path: path, reason: "not a regular file")
            case .file(let inode)?: return machine.inodes[inode]?.volatile ?? []
            }
        }
    }

    func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
        try perform(FileSystemCall.openForAppending(path).description) { machine throws(StorageError) in
            try machine.openExisting(path, writable: true)
        }
    }

    func status(_ file: OpenFile) throws(StorageError) -> FileStatus {
        try perform(FileSystemCall.status(file.path).description) { machine throws(StorageError) in
            // An open directory (the store's ownership check) is a directory, keep's own.
            if machine.directoryHandles[file.descriptor] != nil {
                return FileStatus(kind: .directory, size: 0, modified: 0, inode: 0, linkCount: 1)
            }
            return machine.status(of: try machine.handle(file, "fstat").inode)
        }
    }

    func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        try perform(FileSystemCall.read(file.path, count: count, at: offset).description) {
            machine throws(StorageError) in
            let bytes = machine.inodes[try machine.handle(file, "pread").inode]?.volatile ?? []
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    func truncate(_ file: OpenFile, to size: Int) throws(StorageError) {
        try perform(FileSystemCall.truncate(file.path, to: size).description) { machine throws(StorageError) in
            let handle = try machine.handle(file, "ftruncate")
            guard handle.writable else { throw .system("ftruncate", path: file.path, errno: EBADF) }
            machine.inodes[handle.inode]?.truncate(to: size)
        }
    }

    /// Waits, the thread blocked, until no other open file holds `file`'s lock, then takes it.
    func lock(_ file: OpenFile) throws(StorageError) {
        released.lock()
        defer { released.unlock() }
        while true {
            // Taken (or refused) and recorded as one call; a wait records nothing.
            let taken = try perform(FileSystemCall.lock(file.path).description, recordingIf: { $0 }) {
                machine throws(StorageError) -> Bool in
                let inode = try machine.handle(file, "flock").inode
                if let holder = machine.locks[inode], holder != file.descriptor { return false }
                machine.locks[inode] = file.descriptor
                return true
            }
            if taken { return }
            released.wait()
        }
    }

    func openDirectory(_ path: String) throws(StorageError) -> OpenFile {
        try perform(FileSystemCall.openDirectory(path).description) { machine throws(StorageError) in
            guard machine.volatile[path] != nil else {
                throw .system("open", path: path, errno: machine.lookup(path) == nil ? ENOENT : ENOTDIR)
            }
            let descriptor = machine.nextDescriptor
            machine.nextDescriptor += 1
            machine.directoryHandles[descriptor] = path
            return OpenFile(descriptor: descriptor, path: path)
        }
    }

    func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus {
        let path = Self.join(directory.path, name)
        return try perform(FileSystemCall.statusOfName(path).description) { machine throws(StorageError) in
            guard let opened = machine.directoryHandles[directory.descriptor] else {
                throw .system("lstat", path: path, errno: EBADF)
            }
            switch machine.volatile[opened]?[name] {
            case nil: throw .system("lstat", path: path, errno: ENOENT)
            case .directory?:
                return FileStatus(kind: .directory, size: 0, modified: 0, inode: 0, linkCount: 1)
            case .file(let inode)?: return machine.status(of: inode)
            }
        }
    }

    // MARK: - Beyond the seam

    /// Opens `path` for writing the way an in-place writer does (`O_CREAT | O_TRUNC`): the
    /// existing file, emptied, or a new one. The store never does this; the write-in-place
    /// mutant does.
    func openTruncating(_ path: String) throws(StorageError) -> OpenFile {
        try perform("open(O_TRUNC)(\(path))") { machine throws(StorageError) in
            guard case .file(let inode)? = machine.lookup(path) else { return try machine.create(path) }
            machine.inodes[inode]?.truncate(to: 0)
            return machine.openHandle(inode, path: path, writable: true)
        }
    }

    /// `path`'s directory and its last component; `nil` for `/`.
    static func split(_ path: String) -> (parent: String, name: String)? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        let name = String(path[path.index(after: slash)...])
        return (slash == path.startIndex ? "/" : String(path[..<slash]), name)
    }

    /// `directory/name`.
    static func join(_ directory: String, _ name: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }

    /// Runs one call on the machine and records it with the disk after it, failed or not.
    private func perform<Result: Sendable>(
        _ call: String, recordingIf recorded: (Result) -> Bool = { _ in true },
        _ body: (inout Machine) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try machine.withLock { machine throws(StorageError) -> Result in
            do throws(StorageError) {
                let result = try body(&machine)
                if recorded(result) { machine.records.append(Record(call: call, snapshot: machine.snapshot)) }
                return result
            } catch {
                machine.records.append(Record(call: call, snapshot: machine.snapshot))
                throw error
            }
        }
    }
}

// MARK: - The model

extension SimulatedDisk {
    /// What a directory entry names.
    enum Entry: Hashable, Sendable {
        case file(Int)
        case directory
    }

    /// One file's bytes in both views, and the sizes it had since its last flush.
    struct Inode: Hashable, Sendable {
        var volatile: [UInt8] = []
        var durable: [UInt8] = []
        var unsyncedSizes: [Int] = []
        var writeBackFailed = false
        /// How many times its bytes changed: the disk's stand-in for a modification time.
        var changes = 0

        mutating func append(_ bytes: [UInt8]) {
            volatile += bytes
            changes += 1
            if !writeBackFailed { unsyncedSizes.append(volatile.count) }
        }

        /// Cuts the file to `size` bytes. Cut back to no more than it holds on the medium,
        /// a file whose write-back failed has lost nothing any more: later writes reach the
        /// medium at their flush, as Linux writes pages dirtied after a failed write-back.
        mutating func truncate(to size: Int) {
            volatile.removeLast(max(0, volatile.count - size))
            changes += 1
            if writeBackFailed, size <= durable.count { writeBackFailed = false }
            if !writeBackFailed { unsyncedSizes.append(volatile.count) }
        }

        mutating func flush() {
            if !writeBackFailed { durable = volatile }
            unsyncedSizes = []
        }

        /// A failed write-back: what was unsynced never reaches the medium, nor does anything
        /// written to this file later.
        mutating func loseUnsynced() {
            writeBackFailed = true
            unsyncedSizes = []
        }

        /// Whether a power cut could find anything other than `durable`.
        var isUnsynced: Bool { !unsyncedSizes.isEmpty }
    }

    /// A change to one directory's entries, made in the volatile view and not yet durable.
    struct PendingChange: Hashable, Sendable {
        enum Change: Hashable, Sendable {
            case link(String, Entry)
            case unlink(String)
            /// A rename within the directory, carrying what it moved: a journal records the
            /// entry itself, so the rename can land even when the name's creation did not.
            case rename(String, to: String, Entry)
        }

        let directory: String
        let change: Change

        /// Applies the change to `tree`, a directory path to its entries.
        func apply(to tree: inout [String: [String: Entry]]) {
            switch change {
            case .link(let name, let entry):
                tree[directory, default: [:]][name] = entry
                if entry == .directory {
                    let path = SimulatedDisk.join(directory, name)
                    if tree[path] == nil { tree[path] = [:] }
                }
            case .unlink(let name):
                tree[directory]?[name] = nil
            case .rename(let from, let to, let entry):
                tree[directory, default: [:]][to] = entry
                tree[directory]?[from] = nil
            }
        }
    }

    /// What a power cut at one moment has to choose from: the durable view, the pending
    /// entry changes in order, and every file's bytes in both views.
    struct Snapshot: Hashable, Sendable {
        let durable: [String: [String: Entry]]
        let pending: [PendingChange]
        let inodes: [Int: Inode]
    }

    /// A whole disk as it is found after a power cut: the directories reachable from `/`,
    /// and the bytes of every file they name.
    struct DiskImage: Hashable, Sendable {
        var directories: [String: [String: Entry]]
        var files: [Int: [UInt8]]
    }

    /// An open file: which inode, and whether it was opened for writing.
    struct Handle: Sendable {
        let inode: Int
        let writable: Bool
    }

    /// The whole disk. Every mutation of the volatile tree goes through ``change(_:)``, so
    /// the volatile tree is always the durable one with every pending change applied.
    struct Machine: Sendable {
        var volatile: [String: [String: Entry]]
        var durable: [String: [String: Entry]]
        var pending: [PendingChange] = []
        var inodes: [Int: Inode]
        var handles: [Int32: Handle] = [:]
        /// Open directories (``SimulatedDisk/openDirectory(_:)``), by descriptor: their paths.
        var directoryHandles: [Int32: String] = [:]
        var locks: [Int: Int32] = [:]
        var nextInode: Int
        var nextDescriptor: Int32 = 3
        var flushFailures = 0
        var records: [Record] = []
        var start: Snapshot

        init(image: DiskImage) {
            volatile = image.directories
            durable = image.directories
            inodes = image.files.mapValues { Inode(volatile: $0, durable: $0) }
            nextInode = (image.files.keys.max() ?? 0) + 1
            start = Snapshot(durable: image.directories, pending: [], inodes: inodes)
        }

        var snapshot: Snapshot { Snapshot(durable: durable, pending: pending, inodes: inodes) }

        /// What `fstat` says of the file `inode`, in the volatile view.
        func status(of inode: Int) -> FileStatus {
            let links = volatile.values.reduce(0) { count, entries in
                count + entries.values.filter { $0 == .file(inode) }.count
            }
            let file = inodes[inode]
            return FileStatus(
                kind: .regular, size: Int64(file?.volatile.count ?? 0), modified: Int64(file?.changes ?? 0),
                inode: UInt64(inode), linkCount: links)
        }

        func lookup(_ path: String) -> Entry? {
            guard let (parent, name) = SimulatedDisk.split(path) else { return .directory }
            return volatile[parent]?[name]
        }

        func handle(_ file: OpenFile, _ operation: String) throws(StorageError) -> Handle {
            guard let handle = handles[file.descriptor] else {
                throw .system(operation, path: file.path, errno: EBADF)
            }
            return handle
        }

        /// The existing file at `path`, opened; `ENOENT` for no name, `EISDIR` for a directory.
        mutating func openExisting(_ path: String, writable: Bool) throws(StorageError) -> OpenFile {
            guard let entry = lookup(path) else { throw .system("open", path: path, errno: ENOENT) }
            guard case .file(let inode) = entry else { throw .system("open", path: path, errno: EISDIR) }
            return openHandle(inode, path: path, writable: writable)
        }

        mutating func openHandle(_ inode: Int, path: String, writable: Bool) -> OpenFile {
            let descriptor = nextDescriptor
            nextDescriptor += 1
            handles[descriptor] = Handle(inode: inode, writable: writable)
            return OpenFile(descriptor: descriptor, path: path)
        }

        mutating func change(_ change: PendingChange) {
            change.apply(to: &volatile)
            pending.append(change)
        }

        mutating func create(_ path: String) throws(StorageError) -> OpenFile {
            guard let (parent, name) = SimulatedDisk.split(path), volatile[parent] != nil else {
                throw .system("open", path: path, errno: ENOENT)
            }
            guard volatile[parent]?[name] == nil else { throw .system("open", path: path, errno: EEXIST) }
            let inode = nextInode
            nextInode += 1
            inodes[inode] = Inode()
            change(PendingChange(directory: parent, change: .link(name, .file(inode))))
            return openHandle(inode, path: path, writable: true)
        }

        mutating func rename(_ from: String, to: String) throws(StorageError) {
            guard let (parent, fromName) = SimulatedDisk.split(from), let entry = volatile[parent]?[fromName] else {
                throw .system("rename", path: from, errno: ENOENT)
            }
            guard let (toParent, toName) = SimulatedDisk.split(to), toParent == parent else {
                throw .system("rename", path: from, errno: EXDEV)
            }
            guard case .file = entry, volatile[parent]?[toName] != .directory else {
                throw .system("rename", path: from, errno: EISDIR)
            }
            if fromName == toName { return }
            change(PendingChange(directory: parent, change: .rename(fromName, to: toName, entry)))
        }
    }
}

extension Array {
    /// The elements that satisfy `belongs`, and the others, each in their order.
    fileprivate func partitioned(by belongs: (Element) -> Bool) -> (matching: [Element], others: [Element]) {
        var matching: [Element] = []
        var others: [Element] = []
        for element in self {
            if belongs(element) { matching.append(element) } else { others.append(element) }
        }
        return (matching, others)
    }
}
