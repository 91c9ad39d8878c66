import Foundation
import KeepPorts

/// Copies every value of `source` that `target` lacks into `target`, once.
///
/// The rules, each closing a way to lose data:
///
/// - **Runs once.** The done-marker is `cache`/`marker` in the *target*: the source is the
///   store that can disappear, and a marker kept there would go with it. With the marker
///   present the source is not even read.
/// - **Marker written last**, after every value is copied, and only when nothing failed: a
///   marker written first would declare a copy interrupted by a crash complete.
/// - **Never overwrites.** A key the target already has (even an empty value) keeps its
///   value: data written on the new store since is newer than the old store's.
/// - **Never deletes the source.** An older build rolled back to still finds its data.
/// - **A failure does not stop the copy**: every value that can be copied is, then
///   ``MigrationError`` lists what failed, and the missing marker makes the next launch
///   try again.
/// - **A member that can never be copied is skipped, once.** A value that is not text
///   (``/KeepPorts/StorageError/Code/corrupt``) or an id the target cannot hold
///   (``/KeepPorts/StorageError/Code/invalidId``) fails the same way at every try: retrying would
///   copy everything else again at every launch, bringing back what the user removed since.
///   Such a member is recorded, with why, in the marker (``MigrationMarker``) and the
///   report, and the migration finishes.
///
/// Linear in the number of members: each is listed once, read once from the source (give
/// a source that reads its file once, such as a snapshot) and checked once in the target;
/// a few are copied at once, so their writes can share the target's flushes. `progress` is
/// told (members done, members in all) after each member, from the calling task.
///
/// Every namespace is copied, `cache` included, except the marker itself. `now` stamps the
/// marker (the time the copy finished).
public func migrateStorage(
    from source: any StoragePort, to target: any StoragePort, marker: String = MigrationMarker.key.id,
    now: @Sendable () -> Date = { Date() }, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
) async throws(MigrationError) -> MigrationReport {
    let markerKey = StorageKey(.cache, marker)
    do {
        if try await target.read(markerKey) != nil {
            return MigrationReport(alreadyDone: true, copied: 0, keptNewer: 0)
        }
    } catch {
        throw MigrationError(copied: 0, failures: [error])
    }
    var copied = 0
    var keptNewer = 0
    var failures: [StorageError] = []
    var skipped: [StorageError] = []
    var keys: [StorageKey] = []
    for namespace in Namespace.allCases {
        do {
            keys += try await source.listIds(namespace).sorted().map { StorageKey(namespace, $0) }
        } catch {
            failures.append(error)
        }
    }
    // A few members in flight at once: their writes share directory flushes (a file store's
    // group commit), so the copy is not one flush after another. Each key is its own.
    let width = 8
    var next = 0
    var done = 0
    await withTaskGroup(of: CopyOutcome.self) { group in
        while next < keys.count || !group.isEmpty {
            while next < keys.count && next - done < width {
                let key = keys[next]
                next += 1
                if key == markerKey {
                    done += 1
                    progress(done, keys.count)
                    continue
                }
                group.addTask { await copyMember(key, from: source, to: target) }
            }
            guard let outcome = await group.next() else { break }
            switch outcome {
            case .copied: copied += 1
            case .keptNewer: keptNewer += 1
            case .gone: break
            case .skipped(let error): skipped.append(error)
            case .failed(let error): failures.append(error)
            }
            done += 1
            progress(done, keys.count)
        }
    }
    skipped.sort { $0.description < $1.description }
    guard failures.isEmpty else {
        throw MigrationError(copied: copied, failures: failures)
    }
    let record = MigrationMarker(
        finished: now().formatted(.iso8601), copied: copied, skipped: skipped.map(\.description))
    do {
        try await target.write(markerKey, record.text)
    } catch {
        throw MigrationError(copied: copied, failures: [error])
    }
    return MigrationReport(alreadyDone: false, copied: copied, keptNewer: keptNewer, skipped: skipped)
}

/// What copying one member did.
private enum CopyOutcome: Sendable {
    case copied, keptNewer, gone
    /// Fails alike at every try: recorded, never retried.
    case skipped(StorageError)
    case failed(StorageError)
}

/// Copies `key` from `source` into `target` unless the target has it.
private func copyMember(
    _ key: StorageKey, from source: any StoragePort, to target: any StoragePort
) async
    -> CopyOutcome
{
    do throws(StorageError) {
        guard try await target.read(key) == nil else { return .keptNewer }
        // Listed a moment ago but gone now: nothing to carry over.
        guard let value = try await source.read(key) else { return .gone }
        try await target.write(key, value)
        return .copied
    } catch let error where error.code == .corrupt || error.code == .invalidId {
        return .skipped(error)
    } catch {
        return .failed(error)
    }
}
