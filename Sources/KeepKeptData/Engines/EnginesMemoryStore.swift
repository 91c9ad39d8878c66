import KeepPorts
import KeepSealed

/// The engines store in process memory: the fake the engines store contract proves
/// alongside the SQLite store, and what the module keeps in when nothing may be kept
/// between launches (no secure store for the key).
package actor EnginesMemoryStore: EnginesStorePort {
    private struct Slot: Hashable {
        let kind: String
        let subject: SubjectHash?
    }

    private var readings: [Slot: KeptRecord] = [:]
    private var markers: [Slot: KeptRecord] = [:]
    private var preferences: [Slot: KeptRecord] = [:]

    package init() {}

    package func keepReading(_ reading: KeptRecord) throws(KeptError) {
        let slot = try Self.aboutAServer(reading, "keep a reading")
        if let kept = readings[slot], kept.at > reading.at { return }
        readings[slot] = reading
    }

    package func newestReadings(about subject: SubjectHash) -> [KeptRecord] {
        readings.values.filter { $0.subject == subject }.sorted { $0.kind < $1.kind }
    }

    package func discardReading(_ reading: KeptRecord) {
        let slot = Slot(kind: reading.kind, subject: reading.subject)
        guard let kept = readings[slot], kept.at == reading.at, kept.shapeVersion == reading.shapeVersion else {
            return
        }
        readings[slot] = nil
    }

    package func pruneReadings(readBefore cutoff: KeptInstant) -> Int {
        let old = readings.filter { $0.value.at < cutoff }.keys
        for slot in old { readings[slot] = nil }
        return old.count
    }

    package func keepMarker(_ marker: KeptRecord) throws(KeptError) {
        markers[try Self.aboutAServer(marker, "keep a marker")] = marker
    }

    package func marker(_ kind: String, about subject: SubjectHash) -> KeptRecord? {
        markers[Slot(kind: kind, subject: subject)]
    }

    package func keepPreference(_ preference: KeptRecord) {
        preferences[Slot(kind: preference.kind, subject: preference.subject)] = preference
    }

    package func preference(_ kind: String, about subject: SubjectHash?) -> KeptRecord? {
        preferences[Slot(kind: kind, subject: subject)]
    }

    package func forget(about subject: SubjectHash) -> Int {
        Self.remove(about: subject, from: &readings) + Self.remove(about: subject, from: &markers)
            + Self.remove(about: subject, from: &preferences)
    }

    private static func remove(about subject: SubjectHash, from rows: inout [Slot: KeptRecord]) -> Int {
        let before = rows.count
        rows = rows.filter { $0.key.subject != subject }
        return before - rows.count
    }

    private static func aboutAServer(_ record: KeptRecord, _ operation: String) throws(KeptError) -> Slot {
        guard let subject = record.subject else {
            throw .refused(operation, "a \(record.kind) row is about a server, and this one names none")
        }
        return Slot(kind: record.kind, subject: subject)
    }
}
