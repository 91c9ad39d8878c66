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
///
/// Every namespace is copied, `cache` included, except the marker itself. `now` stamps the
/// marker's value (the time the copy finished).
public func migrateStorage(
    from source: any StoragePort, to target: any StoragePort, marker: String = "migrated-from-store-json",
    now: @Sendable () -> Date = { Date() }
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
    for namespace in Namespace.allCases {
        let ids: [String]
        do {
            ids = try await source.listIds(namespace)
        } catch {
            failures.append(error)
            continue
        }
        for id in ids.sorted() {
            let key = StorageKey(namespace, id)
            if key == markerKey { continue }
            do throws(StorageError) {
                guard try await target.read(key) == nil else {
                    keptNewer += 1
                    continue
                }
                // Listed a moment ago but gone now: nothing to carry over.
                guard let value = try await source.read(key) else { continue }
                try await target.write(key, value)
                copied += 1
            } catch {
                failures.append(error)
            }
        }
    }
    guard failures.isEmpty else {
        throw MigrationError(copied: copied, failures: failures)
    }
    do {
        try await target.write(markerKey, now().formatted(.iso8601))
    } catch {
        throw MigrationError(copied: copied, failures: [error])
    }
    return MigrationReport(alreadyDone: false, copied: copied, keptNewer: keptNewer)
}
