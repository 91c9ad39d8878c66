import KeepPorts
import KeepSealed

/// Where the engines module keeps its readings, markers and preferences: a port it
/// declares, speaking its intents, taking and returning only ``KeptRecord``s (sealed
/// payloads, subject hashes and bookkeeping), so a store never sees what it keeps.
///
/// Every implementation promises, and the engines store contract checks:
///
/// - Readings: one per server and kind, the newest by its time; a reading read earlier
///   never replaces one read later. A reading must be about a server.
/// - Markers: one per server and kind; keeping one replaces the earlier. A marker must be
///   about a server.
/// - Preferences: one per kind and subject (a subject of `nil` is a preference of the
///   whole module); keeping one replaces the earlier.
/// - Records read back exactly as kept: kind, subject, shape version, time, sealed bytes.
/// - ``forget(about:)`` deletes every row about a server, of every kind, and nothing else.
/// - ``pruneReadings(readBefore:)`` deletes only readings, only those read before the cutoff.
///
/// A record the store cannot hold (a reading or marker about no server) is a typed
/// ``KeptError/Code/refused`` error; a failing store throws ``KeptError``.
package protocol EnginesStorePort: Sendable {
    /// Keeps `reading` as the newest of its kind about its server, unless one read later is kept.
    func keepReading(_ reading: KeptRecord) async throws(KeptError)

    /// The newest reading of each kind about `subject`.
    func newestReadings(about subject: SubjectHash) async throws(KeptError) -> [KeptRecord]

    /// Deletes exactly `reading` (same server, kind, time and shape version), if it is still kept.
    func discardReading(_ reading: KeptRecord) async throws(KeptError)

    /// Deletes every reading read before `cutoff`; answers how many went.
    func pruneReadings(readBefore cutoff: KeptInstant) async throws(KeptError) -> Int

    /// Keeps `marker` as the marker of its kind about its server.
    func keepMarker(_ marker: KeptRecord) async throws(KeptError)

    /// The marker of `kind` about `subject`, or `nil`.
    func marker(_ kind: String, about subject: SubjectHash) async throws(KeptError) -> KeptRecord?

    /// Keeps `preference` as the preference of its kind about its subject.
    func keepPreference(_ preference: KeptRecord) async throws(KeptError)

    /// The preference of `kind` about `subject` (`nil`: the whole module's), or `nil`.
    func preference(_ kind: String, about subject: SubjectHash?) async throws(KeptError) -> KeptRecord?

    /// Deletes every reading, marker and preference about `subject`; answers how many rows went.
    func forget(about subject: SubjectHash) async throws(KeptError) -> Int
}
