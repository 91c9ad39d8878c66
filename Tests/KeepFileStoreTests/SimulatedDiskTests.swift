import KeepFileStore
import KeepPorts
import Testing

/// The simulated disk keeps exactly what a power cut may keep: the instrument is checked
/// before the store is measured with it.
@Suite("The simulated disk")
struct SimulatedDiskTests {
    static let directory = "/d"

    @Test("a new name is lost or kept by a power cut until its directory is flushed, then always kept")
    func aNewNameIsDurableOnlyOnceItsDirectoryIsFlushed() throws {
        let disk = try Self.diskWithDirectory()
        let file = try disk.create("/d/a", mode: 0o600)
        try disk.write(file, Array("hello".utf8))
        try disk.flush(file)
        // The file's flush made its bytes durable, not its name.
        #expect(Self.namesAfterACut(disk) == [[], ["a"]])
        try disk.flushDirectory(Self.directory)
        #expect(Self.namesAfterACut(disk) == [["a"]])
        #expect(Self.contentsAfterACut(disk, "a") == ["hello"])
    }

    @Test("an unflushed write lands in any subset of its sectors, at any size the file had")
    func anUnflushedWriteLandsInAnySubsetOfItsSectors() throws {
        let disk = try Self.diskWithDirectory(sectorSize: 4)
        let file = try disk.create("/d/a", mode: 0o600)
        try disk.write(file, Array("AAAABBBB".utf8))
        try disk.flush(file)
        try disk.flushDirectory(Self.directory)
        try disk.write(file, Array("CCCC".utf8))
        let contents = Self.contentsAfterACut(disk, "a")
        // The old 8 bytes, or 12 with the third sector new or still zeros.
        #expect(contents == ["AAAABBBB", "AAAABBBB\0\0\0\0", "AAAABBBBCCCC"])

        let rewritten = try disk.openTruncating("/d/a")
        try disk.write(rewritten, Array("xxxxyyyy".utf8))
        // Any size it had since its last flush (8, 12, 0), each changed sector old or new;
        // the truncated "CCCC" was never durable, so the third sector is zeros.
        let sizes = ["", "AAAABBBB", "xxxxBBBB", "AAAAyyyy", "xxxxyyyy"]
        #expect(Self.contentsAfterACut(disk, "a") == (sizes + sizes.dropFirst().map { $0 + "\0\0\0\0" }).sorted())
    }

    @Test("a rename lands whole or not at all, and a flushed rename is kept")
    func aRenameLandsWholeOrNotAtAll() throws {
        let disk = try Self.diskWithDirectory()
        for (name, value) in [("old", "old value"), ("temp", "new value")] {
            let file = try disk.create("/d/\(name)", mode: 0o600)
            try disk.write(file, Array(value.utf8))
            try disk.flush(file)
            try disk.close(file)
        }
        try disk.flushDirectory(Self.directory)
        try disk.rename("/d/temp", to: "/d/old")
        #expect(Self.namesAfterACut(disk) == [["old"], ["old", "temp"]])
        #expect(Set(Self.contentsAfterACut(disk, "old")) == ["old value", "new value"])
        try disk.flushDirectory(Self.directory)
        #expect(Self.contentsAfterACut(disk, "old") == ["new value"])
    }

    @Test("past the exhaustive limit, the bounded subset still holds both ends and every single lost change")
    func theBoundedSubsetHoldsBothEnds() throws {
        let disk = try Self.diskWithDirectory()
        // 14 unflushed names: 2^14 combinations, past the limit.
        for index in 0..<14 { try disk.close(try disk.create("/d/f\(index)", mode: 0o600)) }
        let exploration = CrashStates.explore(disk.records[disk.records.count - 1].snapshot, sectorSize: 16)
        #expect(!exploration.exhaustive)
        let listings = Set(exploration.states.map { $0.image.directories[Self.directory]?.count ?? -1 })
        // Nothing, everything, everything but one or two, and one or two alone.
        #expect(listings == [0, 1, 2, 12, 13, 14])
        // The pair: under the limit, every combination is taken.
        let small = try Self.diskWithDirectory()
        for index in 0..<4 { try small.close(try small.create("/d/f\(index)", mode: 0o600)) }
        let whole = CrashStates.explore(small.records[small.records.count - 1].snapshot, sectorSize: 16)
        #expect(whole.exhaustive)
        #expect(whole.states.count == 16)
    }

    // MARK: - Helpers

    /// A disk with `/d` made durable.
    static func diskWithDirectory(sectorSize: Int = 16) throws -> SimulatedDisk {
        let disk = SimulatedDisk(sectorSize: sectorSize)
        try disk.makeDirectory(directory, mode: 0o700)
        disk.settle()
        return disk
    }

    /// Every listing of `/d` a power cut now can leave, sorted.
    static func namesAfterACut(_ disk: SimulatedDisk) -> [[String]] {
        let snapshot = disk.records.last?.snapshot ?? disk.start
        let states = CrashStates.explore(snapshot, sectorSize: disk.sectorSize).states
        return Set(states.map { ($0.image.directories[directory] ?? [:]).keys.sorted() }).sorted {
            $0.lexicographicallyPrecedes($1)
        }
    }

    /// Every content of `/d/<name>` a power cut now can leave (absent left out), sorted.
    static func contentsAfterACut(_ disk: SimulatedDisk, _ name: String) -> [String] {
        let snapshot = disk.records.last?.snapshot ?? disk.start
        let states = CrashStates.explore(snapshot, sectorSize: disk.sectorSize).states
        let contents = states.compactMap { state -> String? in
            guard case .file(let id)? = state.image.directories[directory]?[name] else { return nil }
            return String(decoding: state.image.files[id] ?? [], as: UTF8.self)
        }
        return Set(contents).sorted()
    }
}
