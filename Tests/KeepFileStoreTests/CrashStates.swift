/// Every state a power cut can leave a ``SimulatedDisk`` in, at one moment.
///
/// A power cut keeps the durable view and any part of what was pending. The parts are
/// *choice points*: each pending entry change (landed or lost, whole: a rename is atomic,
/// and changes land in any subset, not only in order), each file written since its last
/// flush (its size: any it had since that flush), and each sector of such a file whose new
/// bytes differ from its old ones (new or old; past a file's old end, "old" is zeros). A
/// file no name can point at in any state (an unlinked temp) offers no choice.
///
/// When the choice points allow at most ``exhaustiveLimit`` combinations, every combination
/// is taken. Past that, a systematic bounded subset: every combination that differs in at
/// most two choice points from one of two bases, *everything landed* (the volatile view, as
/// after a process crash) and *nothing landed* (the durable view alone). Each single lost
/// or landed change, torn file or odd size, and each pair of them, is so reached from both
/// ends. Distinct disk images only are returned.
enum CrashStates {
    /// The most combinations enumerated whole; past it the bounded subset is taken.
    static let exhaustiveLimit = 8192

    /// One state the disk can be found in, and which choices led to it.
    struct State: Sendable {
        let image: SimulatedDisk.DiskImage
        let summary: String
    }

    /// The states of one moment, and how they were chosen.
    struct Exploration: Sendable {
        let states: [State]
        /// Whether every combination of the choice points was taken.
        let exhaustive: Bool
    }

    /// The states a power cut right at `snapshot` can leave, with `sectorSize`-byte sectors.
    static func explore(_ snapshot: SimulatedDisk.Snapshot, sectorSize: Int) -> Exploration {
        let points = ChoicePoints(snapshot, sectorSize: sectorSize)
        let assignments: [[Int]]
        let exhaustive = points.combinations <= exhaustiveLimit
        if exhaustive {
            assignments = points.all()
        } else {
            assignments = points.near([points.allLanded, points.noneLanded], distance: 2)
        }
        var seen = Set<SimulatedDisk.DiskImage>()
        var states: [State] = []
        for assignment in assignments {
            let image = points.image(assignment)
            if seen.insert(image).inserted {
                states.append(State(image: image, summary: points.summary(assignment)))
            }
        }
        return Exploration(states: states, exhaustive: exhaustive)
    }
}

// MARK: - The choice points of one snapshot

/// What a power cut can choose at one snapshot, each point with its number of options.
private struct ChoicePoints {
    enum Point {
        /// Pending change `index`: 0 lost, 1 landed.
        case change(Int)
        /// A file's size: an index into its unsynced file's `sizes`.
        case size(inode: Int)
        /// One sector of a file: 0 old bytes, 1 new.
        case sector(inode: Int, sector: Int)
    }

    /// A file a power cut can find in more than one way.
    struct UnsyncedFile {
        let inode: SimulatedDisk.Inode
        /// Every size it had since its last flush, its durable size first.
        let sizes: [Int]
        let sectors: [Int]
    }

    let snapshot: SimulatedDisk.Snapshot
    let sectorSize: Int
    var points: [Point] = []
    var arities: [Int] = []
    var files: [Int: UnsyncedFile] = [:]

    init(_ snapshot: SimulatedDisk.Snapshot, sectorSize: Int) {
        self.snapshot = snapshot
        self.sectorSize = sectorSize
        for index in snapshot.pending.indices {
            points.append(.change(index))
            arities.append(2)
        }
        for id in Self.nameable(snapshot).sorted() {
            guard let inode = snapshot.inodes[id], inode.isUnsynced else { continue }
            var sizes: [Int] = []
            for size in [inode.durable.count] + inode.unsyncedSizes where !sizes.contains(size) { sizes.append(size) }
            let longest = sizes.max() ?? 0
            let sectorCount = (longest + sectorSize - 1) / sectorSize
            // Only a sector whose new bytes differ from its old ones is a choice.
            let sectors = (0..<sectorCount).filter { sector in
                let range = sector * sectorSize..<min((sector + 1) * sectorSize, longest)
                return range.contains { Self.byte(inode.volatile, $0) != Self.byte(inode.durable, $0) }
            }
            files[id] = UnsyncedFile(inode: inode, sizes: sizes, sectors: sectors)
            if sizes.count > 1 {
                points.append(.size(inode: id))
                arities.append(sizes.count)
            }
            for sector in sectors {
                points.append(.sector(inode: id, sector: sector))
                arities.append(2)
            }
        }
    }

    /// How many combinations there are, saturating rather than overflowing.
    var combinations: Int {
        arities.reduce(1) { product, arity in product > CrashStates.exhaustiveLimit ? product : product * arity }
    }

    /// Every change landed, every file at its newest size with every sector new.
    var allLanded: [Int] {
        points.map { point in
            switch point {
            case .change, .sector: 1
            case .size(let id): files[id].map { $0.sizes.firstIndex(of: $0.inode.volatile.count) ?? 0 } ?? 0
            }
        }
    }

    /// Nothing pending landed: the durable view alone.
    var noneLanded: [Int] { points.map { _ in 0 } }

    /// Every combination, in counting order.
    func all() -> [[Int]] {
        var result: [[Int]] = []
        var assignment = points.map { _ in 0 }
        while true {
            result.append(assignment)
            var position = 0
            while position < assignment.count {
                assignment[position] += 1
                if assignment[position] < arities[position] { break }
                assignment[position] = 0
                position += 1
            }
            if position == assignment.count { return result }
        }
    }

    /// Every combination that differs from one of `bases` in at most `distance` points
    /// (1 or 2).
    func near(_ bases: [[Int]], distance: Int) -> [[Int]] {
        var result = Set<[Int]>()
        for base in bases {
            result.insert(base)
            for first in points.indices {
                for firstValue in 0..<arities[first] where firstValue != base[first] {
                    var one = base
                    one[first] = firstValue
                    result.insert(one)
                    guard distance > 1 else { continue }
                    for second in (first + 1)..<points.count {
                        for secondValue in 0..<arities[second] where secondValue != base[second] {
                            var two = one
                            two[second] = secondValue
                            result.insert(two)
                        }
                    }
                }
            }
        }
        return result.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The disk a power cut leaves under `assignment`: the durable tree with the landed
    /// changes applied in their order, cut down to what `/` reaches, and every file's bytes.
    func image(_ assignment: [Int]) -> SimulatedDisk.DiskImage {
        var tree = snapshot.durable
        var sizeChoice: [Int: Int] = [:]
        var landedSectors: [Int: Set<Int>] = [:]
        for (point, value) in zip(points, assignment) {
            switch point {
            case .change(let index): if value == 1 { snapshot.pending[index].apply(to: &tree) }
            case .size(let id): sizeChoice[id] = value
            case .sector(let id, let sector): if value == 1 { landedSectors[id, default: []].insert(sector) }
            }
        }
        var directories: [String: [String: SimulatedDisk.Entry]] = [:]
        var files: [Int: [UInt8]] = [:]
        var queue = ["/"]
        while let path = queue.popLast() {
            let entries = tree[path] ?? [:]
            directories[path] = entries
            for (name, entry) in entries {
                switch entry {
                case .directory: queue.append(SimulatedDisk.join(path, name))
                case .file(let id): files[id] = bytes(of: id, size: sizeChoice[id], landed: landedSectors[id] ?? [])
                }
            }
        }
        return SimulatedDisk.DiskImage(directories: directories, files: files)
    }

    /// What `assignment` kept and lost, in words, against everything landed.
    func summary(_ assignment: [Int]) -> String {
        if assignment == allLanded { return "everything pending landed (the volatile view)" }
        if assignment == noneLanded { return "nothing pending landed (the durable view)" }
        var parts: [String] = []
        let lost = snapshot.pending.indices.filter { index in
            zip(points, assignment).contains { point, value in
                if case .change(index) = point { return value == 0 }
                return false
            }
        }
        if !snapshot.pending.isEmpty {
            let names = lost.map { Self.describe(snapshot.pending[$0].change) }
            parts.append(
                "\(snapshot.pending.count - lost.count) of \(snapshot.pending.count) pending entry changes landed"
                    + (lost.isEmpty ? "" : ", lost: " + names.joined(separator: ", ")))
        }
        for (id, file) in files.sorted(by: { $0.key < $1.key }) {
            var size = file.inode.volatile.count
            var landed: [Int] = []
            for (point, value) in zip(points, assignment) {
                switch point {
                case .size(id): size = file.sizes[value]
                case .sector(id, let sector) where value == 1: landed.append(sector)
                default: break
                }
            }
            parts.append(
                "file #\(id) at \(size) of sizes \(file.sizes), new sectors \(landed) of \(file.sectors)")
        }
        return parts.joined(separator: "; ")
    }

    /// A file's bytes at `size` (its durable size when `nil` and it offers no size
    /// choice), each sector new when landed and old otherwise.
    private func bytes(of id: Int, size: Int?, landed: Set<Int>) -> [UInt8] {
        guard let file = files[id] else { return snapshot.inodes[id]?.durable ?? [] }
        let size = size.map { file.sizes[$0] } ?? file.sizes[0]
        return (0..<size).map { offset in
            landed.contains(offset / sectorSize)
                ? Self.byte(file.inode.volatile, offset) : Self.byte(file.inode.durable, offset)
        }
    }

    /// Every inode some state can give a name: named in the durable tree or by a pending change.
    private static func nameable(_ snapshot: SimulatedDisk.Snapshot) -> Set<Int> {
        var ids = Set<Int>()
        for entries in snapshot.durable.values {
            for case .file(let id) in entries.values { ids.insert(id) }
        }
        for pending in snapshot.pending {
            switch pending.change {
            case .link(_, .file(let id)), .rename(_, _, .file(let id)): ids.insert(id)
            default: break
            }
        }
        return ids
    }

    private static func byte(_ bytes: [UInt8], _ offset: Int) -> UInt8 {
        offset < bytes.count ? bytes[offset] : 0
    }

    private static func describe(_ change: SimulatedDisk.PendingChange.Change) -> String {
        switch change {
        case .link(let name, .directory): "mkdir \(name)"
        case .link(let name, _): "create \(name)"
        case .unlink(let name): "unlink \(name)"
        case .rename(let from, let to, _): "rename \(from) → \(to)"
        }
    }
}
