import KeepConformance
import KeepSealed

@testable import KeepKeptData

/// The engines store contract: every rule an ``EnginesStorePort`` keeps, as data. The
/// same cases run against the memory store and the SQLite store.
enum EnginesStoreContract {
    typealias Case = ContractCase<any EnginesStorePort>

    static let cases: [Case] = [
        aReadingReadsBackExactly, aLaterReadingReplacesTheEarlier, anEarlierReadingNeverReplacesALater,
        readingsNeverCollide, aServerNeverReadHasNoReadings, aRowAboutNoServerIsRefused, discardIsExact,
        pruneDeletesOnlyOldReadings, aMarkerReplacesTheEarlier, aPreferenceReplacesTheEarlier,
        forgetDeletesEverythingAboutOneServer,
    ]

    static let aReadingReadsBackExactly = Case(
        "a kept reading reads back exactly: kind, server, shape version, time and sealed bytes"
    ) { make, expect in
        let store = try await make()
        let reading = try KeptSamples.record("models", about: try KeptSamples.subject(1), at: 1_234_567, version: 7)
        try await store.keepReading(reading)
        try expect.equal(try await store.newestReadings(about: try KeptSamples.subject(1)), [reading], "readings")
    }

    static let aLaterReadingReplacesTheEarlier = Case(
        "a reading read later replaces the earlier one of its kind for its server"
    ) { make, expect in
        let store = try await make()
        let server = try KeptSamples.subject(1)
        try await store.keepReading(try KeptSamples.record("models", about: server, at: 1000))
        let later = try KeptSamples.record("models", about: server, at: 2000)
        try await store.keepReading(later)
        try expect.equal(try await store.newestReadings(about: server), [later], "readings after a later one")
    }

    static let anEarlierReadingNeverReplacesALater = Case(
        "a reading read earlier never replaces one read later"
    ) { make, expect in
        let store = try await make()
        let server = try KeptSamples.subject(1)
        let later = try KeptSamples.record("models", about: server, at: 2000)
        try await store.keepReading(later)
        try await store.keepReading(try KeptSamples.record("models", about: server, at: 1000))
        try expect.equal(try await store.newestReadings(about: server), [later], "readings after an earlier one")
    }

    static let readingsNeverCollide = Case(
        "readings of different kinds and different servers never collide"
    ) { make, expect in
        let store = try await make()
        let (one, two) = (try KeptSamples.subject(1), try KeptSamples.subject(2))
        let kept = [
            try KeptSamples.record("health", about: one, at: 10), try KeptSamples.record("models", about: one, at: 10),
            try KeptSamples.record("health", about: two, at: 20), try KeptSamples.record("models", about: two, at: 20),
        ]
        for reading in kept { try await store.keepReading(reading) }
        try expect.equal(try await store.newestReadings(about: one), Array(kept[0..<2]), "the first server's")
        try expect.equal(try await store.newestReadings(about: two), Array(kept[2..<4]), "the second server's")
    }

    static let aServerNeverReadHasNoReadings = Case("a server never read has no readings, markers or preferences") {
        make, expect in
        let store = try await make()
        try await store.keepReading(try KeptSamples.record("models", about: try KeptSamples.subject(1), at: 1))
        let never = try KeptSamples.subject(9)
        try expect.equal(try await store.newestReadings(about: never), [], "readings")
        try expect.equal(try await store.marker("seen-models", about: never), nil, "marker")
        try expect.equal(try await store.preference("retention", about: never), nil, "preference about it")
        try expect.equal(try await store.preference("retention", about: nil), nil, "the module's preference")
    }

    static let aRowAboutNoServerIsRefused = Case(
        "a reading or marker about no server is refused, and nothing is kept"
    ) { make, expect in
        let store = try await make()
        let aboutNothing = try KeptSamples.record("models", about: nil, at: 1)
        try await expect.throwsError(KeptError.self, "keepReading", where: { $0.code == .refused }) {
            try await store.keepReading(aboutNothing)
        }
        try await expect.throwsError(KeptError.self, "keepMarker", where: { $0.code == .refused }) {
            try await store.keepMarker(aboutNothing)
        }
        // What is about something is kept as ever.
        let server = try KeptSamples.subject(1)
        try await store.keepReading(try KeptSamples.record("models", about: server, at: 1))
        try expect.equal(try await store.newestReadings(about: server).count, 1, "readings about a server")
    }

    static let discardIsExact = Case(
        "discarding a reading deletes exactly that reading, never a newer one kept since or another kind"
    ) { make, expect in
        let store = try await make()
        let server = try KeptSamples.subject(1)
        let old = try KeptSamples.record("models", about: server, at: 1000, version: 9)
        let health = try KeptSamples.record("health", about: server, at: 1000)
        try await store.keepReading(old)
        try await store.keepReading(health)
        let newer = try KeptSamples.record("models", about: server, at: 2000)
        try await store.keepReading(newer)
        try await store.discardReading(old)
        try expect.equal(
            try await store.newestReadings(about: server), [health, newer], "after discarding a stale copy")
        try await store.discardReading(newer)
        try expect.equal(try await store.newestReadings(about: server), [health], "after discarding the reading")
    }

    static let pruneDeletesOnlyOldReadings = Case(
        "pruning deletes only readings read before the cutoff, never markers or preferences"
    ) { make, expect in
        let store = try await make()
        let (one, two) = (try KeptSamples.subject(1), try KeptSamples.subject(2))
        try await store.keepReading(try KeptSamples.record("models", about: one, at: 999))
        let atCutoff = try KeptSamples.record("health", about: one, at: 1000)
        try await store.keepReading(atCutoff)
        try await store.keepReading(try KeptSamples.record("models", about: two, at: 5))
        let marker = try KeptSamples.record("seen-models", about: one, at: 1)
        let preference = try KeptSamples.record("retention", about: nil, at: 1)
        try await store.keepMarker(marker)
        try await store.keepPreference(preference)
        let pruned = try await store.pruneReadings(readBefore: KeptInstant(millisecondsSince1970: 1000))
        try expect.equal(pruned, 2, "readings pruned")
        try expect.equal(try await store.newestReadings(about: one), [atCutoff], "the first server's readings")
        try expect.equal(try await store.newestReadings(about: two), [], "the second server's readings")
        try expect.equal(try await store.marker("seen-models", about: one), marker, "the marker")
        try expect.equal(try await store.preference("retention", about: nil), preference, "the preference")
    }

    static let aMarkerReplacesTheEarlier = Case(
        "a marker replaces the earlier marker of its kind for its server, and no other"
    ) { make, expect in
        let store = try await make()
        let (one, two) = (try KeptSamples.subject(1), try KeptSamples.subject(2))
        let other = try KeptSamples.record("seen-models", about: two, at: 5)
        try await store.keepMarker(other)
        try await store.keepMarker(try KeptSamples.record("seen-models", about: one, at: 10))
        let replacing = try KeptSamples.record("seen-models", about: one, at: 20)
        try await store.keepMarker(replacing)
        try expect.equal(try await store.marker("seen-models", about: one), replacing, "the first server's marker")
        try expect.equal(try await store.marker("seen-models", about: two), other, "the second server's marker")
        try expect.equal(try await store.marker("seen-other", about: one), nil, "another kind")
    }

    static let aPreferenceReplacesTheEarlier = Case(
        "a preference replaces the earlier one of its kind and subject, and no other"
    ) { make, expect in
        let store = try await make()
        let server = try KeptSamples.subject(1)
        let order = try KeptSamples.record("servers", about: nil, at: 1)
        let aboutServer = try KeptSamples.record("retention", about: server, at: 1)
        try await store.keepPreference(order)
        try await store.keepPreference(aboutServer)
        try await store.keepPreference(try KeptSamples.record("retention", about: nil, at: 1, version: 1))
        let replacing = try KeptSamples.record("retention", about: nil, at: 2, version: 2)
        try await store.keepPreference(replacing)
        try expect.equal(try await store.preference("retention", about: nil), replacing, "the module's retention")
        try expect.equal(try await store.preference("retention", about: server), aboutServer, "the server's retention")
        try expect.equal(try await store.preference("servers", about: nil), order, "another kind")
    }

    static let forgetDeletesEverythingAboutOneServer = Case(
        "forgetting a server deletes its readings, markers and preferences, and nothing of any other"
    ) { make, expect in
        let store = try await make()
        let (gone, stays) = (try KeptSamples.subject(1), try KeptSamples.subject(2))
        for subject in [gone, stays] {
            try await store.keepReading(try KeptSamples.record("models", about: subject, at: 1))
            try await store.keepReading(try KeptSamples.record("health", about: subject, at: 1))
            try await store.keepMarker(try KeptSamples.record("seen-models", about: subject, at: 1))
            try await store.keepPreference(try KeptSamples.record("retention", about: subject, at: 1))
        }
        let modulePreference = try KeptSamples.record("servers", about: nil, at: 1)
        try await store.keepPreference(modulePreference)
        try expect.equal(try await store.forget(about: gone), 4, "rows forgotten")
        try expect.equal(try await store.newestReadings(about: gone), [], "its readings")
        try expect.equal(try await store.marker("seen-models", about: gone), nil, "its marker")
        try expect.equal(try await store.preference("retention", about: gone), nil, "its preference")
        try expect.equal(try await store.newestReadings(about: stays).count, 2, "the other server's readings")
        try expect.that(try await store.marker("seen-models", about: stays) != nil, "the other server's marker is gone")
        try expect.that(
            try await store.preference("retention", about: stays) != nil, "the other server's preference is gone")
        try expect.equal(try await store.preference("servers", about: nil), modulePreference, "the module's preference")
        try expect.equal(try await store.forget(about: gone), 0, "forgetting it again")
    }
}
