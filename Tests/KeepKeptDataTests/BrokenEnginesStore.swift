import KeepPorts
import KeepSealed

@testable import KeepKeptData

/// An engines store with one deliberate flaw, to prove the contract catches it: every
/// call goes to a correct memory store except the one the flaw breaks.
actor BrokenEnginesStore: EnginesStorePort {
    enum Flaw: String, CaseIterable, Sendable {
        /// Every reading replaces the kept one, even one read earlier.
        case earlierReadingWins
        /// Pruning deletes every reading, whatever its time.
        case prunesEverything
        /// Forgetting a server deletes its readings only.
        case forgetLeavesMarkers
        /// A reading about no server is kept under an empty subject instead of refused.
        case keepsReadingsAboutNothing

        /// The contract case this flaw breaks.
        var brokenCase: String {
            switch self {
            case .earlierReadingWins: EnginesStoreContract.anEarlierReadingNeverReplacesALater.name
            case .prunesEverything: EnginesStoreContract.pruneDeletesOnlyOldReadings.name
            case .forgetLeavesMarkers: EnginesStoreContract.forgetDeletesEverythingAboutOneServer.name
            case .keepsReadingsAboutNothing: EnginesStoreContract.aRowAboutNoServerIsRefused.name
            }
        }
    }

    let flaw: Flaw
    private let correct = EnginesMemoryStore()

    init(_ flaw: Flaw) {
        self.flaw = flaw
    }

    func keepReading(_ reading: KeptRecord) async throws(KeptError) {
        switch flaw {
        case .earlierReadingWins:
            if let kept = await correct.newestReadings(about: reading.subject ?? KeptSamples.nobody)
                .first(where: { $0.kind == reading.kind })
            {
                await correct.discardReading(kept)
            }
        case .keepsReadingsAboutNothing where reading.subject == nil:
            return
        default:
            break
        }
        try await correct.keepReading(reading)
    }

    func newestReadings(about subject: SubjectHash) async -> [KeptRecord] {
        await correct.newestReadings(about: subject)
    }

    func discardReading(_ reading: KeptRecord) async {
        await correct.discardReading(reading)
    }

    func pruneReadings(readBefore cutoff: KeptInstant) async -> Int {
        await correct.pruneReadings(
            readBefore: flaw == .prunesEverything ? KeptInstant(millisecondsSince1970: .max) : cutoff)
    }

    func keepMarker(_ marker: KeptRecord) async throws(KeptError) {
        if flaw == .keepsReadingsAboutNothing, marker.subject == nil { return }
        try await correct.keepMarker(marker)
    }

    func marker(_ kind: String, about subject: SubjectHash) async -> KeptRecord? {
        await correct.marker(kind, about: subject)
    }

    func keepPreference(_ preference: KeptRecord) async {
        await correct.keepPreference(preference)
    }

    func preference(_ kind: String, about subject: SubjectHash?) async -> KeptRecord? {
        await correct.preference(kind, about: subject)
    }

    func forget(about subject: SubjectHash) async -> Int {
        guard flaw == .forgetLeavesMarkers else { return await correct.forget(about: subject) }
        var count = 0
        for reading in await correct.newestReadings(about: subject) {
            await correct.discardReading(reading)
            count += 1
        }
        return count
    }
}
