import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's stamps (``ValueStamp``): size, modification time and inode of each
/// value's file, from one `fstatat` per name (never following a symbolic link) and never a
/// byte of the file, every call through the seam.
///
/// Every write renames a new file into place, so it changes the inode even when size and
/// time stay the same; an append grows the file; a file edited in place changes its time.
/// A name that is not a regular file, or that cannot be stat'ed (`EIO`, `EACCES`), gets a
/// stamp whose problem says so: that one key's problem. Only a namespace directory that
/// exists and cannot be listed or opened throws.
struct StampReader: Sendable {
    let calls: any FileSystemCalls
    let threads: IOThreads

    /// How many names each thread takes at least before the stats are split: below it,
    /// handing work to a second thread costs more than it saves.
    static let splitAbove = 512

    /// The stamp of the file `name` in `directory`, or `nil` when there is none. Blocks.
    func stamp(_ name: String, in directory: String) throws(StorageError) -> ValueStamp? {
        let opened: OpenFile
        do throws(StorageError) {
            opened = try calls.openDirectory(directory)
        } catch let error where error.errno == ENOENT {
            return nil  // nothing was ever written in this namespace
        }
        defer { try? calls.close(opened) }  // read-only: closing cannot lose anything
        return stamp(name, in: opened)
    }

    /// The stamp of every value's file in `directory`, by id; empty when the directory is
    /// missing. The stats of a large namespace are split between up to `parts` of the file
    /// stores' threads: they cost the kernel's time, which more cores share.
    func stamps(in directory: String, parts: Int) async throws(StorageError) -> [String: ValueStamp] {
        let names = try await threads.run { [calls] () throws(StorageError) -> [String] in
            do throws(StorageError) {
                return try calls.listDirectory(directory)
            } catch let error where error.errno == ENOENT {
                return []
            }
        }
        let parts = max(1, min(parts, names.count / Self.splitAbove))
        guard parts > 1 else {
            return try await threads.run { [self] () throws(StorageError) in
                try stamps(of: names[...], in: directory, room: names.count)
            }
        }
        // Each part's stamps by themselves; the first part's dictionary is made large enough
        // for all of them, and the others are merged into it.
        let results = await withTaskGroup(of: (Int, Result<[String: ValueStamp], StorageError>).self) { group in
            for part in 0..<parts {
                let slice = names[(names.count * part / parts)..<(names.count * (part + 1) / parts)]
                let room = part == 0 ? names.count : slice.count
                group.addTask { [self] in
                    (
                        part,
                        await outcome { () throws(StorageError) in try stamps(of: slice, in: directory, room: room) }
                    )
                }
            }
            var results = [Result<[String: ValueStamp], StorageError>?](repeating: nil, count: parts)
            for await (part, result) in group { results[part] = result }
            return results.compactMap { $0 }
        }
        var all = try results[0].get()
        for result in results.dropFirst() { all.merge(try result.get()) { kept, _ in kept } }
        return all
    }

    /// `body` run on the file stores' threads, its error kept as a value (a task group's
    /// child would forget its type).
    private func outcome<Value: Sendable>(
        _ body: @escaping @Sendable () throws(StorageError) -> Value
    ) async -> Result<Value, StorageError> {
        do {
            return .success(try await threads.run(body))
        } catch {
            return .failure(error)
        }
    }

    /// The stamps of `names` in `directory`, by id; names that are no id of the store's are
    /// left out, and so are names gone since the listing.
    private func stamps(
        of names: ArraySlice<String>, in directory: String, room: Int
    ) throws(StorageError) -> [String: ValueStamp] {
        let opened: OpenFile
        do throws(StorageError) {
            opened = try calls.openDirectory(directory)
        } catch let error where error.errno == ENOENT {
            return [:]
        }
        defer { try? calls.close(opened) }
        var stamps: [String: ValueStamp] = [:]
        stamps.reserveCapacity(room)
        for name in names {
            guard let id = Self.isLiteral(name) ? name : IdEncoding.id(fromFileName: name) else { continue }
            stamps[id] = stamp(name, in: opened)
        }
        return stamps
    }

    /// The stamp of `name` in the open `directory`; `nil` when it has gone; a stamp with
    /// the failure as its problem when it cannot be stat'ed.
    private func stamp(_ name: String, in directory: OpenFile) -> ValueStamp? {
        do throws(StorageError) {
            let status = try calls.status(of: name, in: directory)
            return ValueStamp(
                size: status.size, modified: status.modified, changeToken: status.inode,
                problem: status.irregularity)
        } catch let error where error.errno == ENOENT {
            return nil
        } catch {
            return ValueStamp(size: -1, modified: 0, changeToken: 0, problem: error.description)
        }
    }

    /// Whether `name` is its own id: `a-z 0-9 - _` only, so nothing to decode (the
    /// encoding keeps those bytes as they are and escapes every other byte).
    private static func isLiteral(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= IdEncoding.maximumNameLength
            && name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x5f
            }
    }
}
