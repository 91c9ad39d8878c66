import KeepConformance
import KeepSealed

@testable import KeepKeptData

/// The chats store contract: every rule a ``ChatsStorePort`` keeps, as data. The same
/// cases run against the memory store and the SQLite store.
enum ChatsStoreContract {
    typealias Case = ContractCase<any ChatsStorePort>

    static let cases: [Case] = [
        aPreferenceReadsBackExactly, aPreferenceReplacesTheEarlier, aPreferenceNeverKeptIsAbsent,
        forgettingOneKindLeavesTheOthers, aPreferenceAboutASubjectIsRefused,
    ]

    static let aPreferenceReadsBackExactly = Case(
        "a kept preference reads back exactly: kind, shape version, time and sealed bytes"
    ) { make, expect in
        let store = try await make()
        let preference = try KeptSamples.record("last-open-chat", about: nil, at: 98_765, version: 3)
        try await store.keepPreference(preference)
        try expect.equal(try await store.preference("last-open-chat"), preference, "the preference")
    }

    static let aPreferenceReplacesTheEarlier = Case(
        "a preference replaces the earlier one of its kind, and no other"
    ) { make, expect in
        let store = try await make()
        let other = try KeptSamples.record("layout", about: nil, at: 1)
        try await store.keepPreference(other)
        try await store.keepPreference(try KeptSamples.record("last-open-chat", about: nil, at: 1))
        let replacing = try KeptSamples.record("last-open-chat", about: nil, at: 2, version: 2)
        try await store.keepPreference(replacing)
        try expect.equal(try await store.preference("last-open-chat"), replacing, "the replaced kind")
        try expect.equal(try await store.preference("layout"), other, "another kind")
    }

    static let aPreferenceNeverKeptIsAbsent = Case(
        "a preference never kept is absent, and forgetting it succeeds and says there was none"
    ) { make, expect in
        let store = try await make()
        try expect.equal(try await store.preference("last-open-chat"), nil, "the preference")
        try expect.equal(try await store.forgetPreference("last-open-chat"), false, "forgetting it")
    }

    static let forgettingOneKindLeavesTheOthers = Case(
        "forgetting a preference deletes it and leaves the other kinds"
    ) { make, expect in
        let store = try await make()
        let other = try KeptSamples.record("layout", about: nil, at: 1)
        try await store.keepPreference(other)
        try await store.keepPreference(try KeptSamples.record("last-open-chat", about: nil, at: 1))
        try expect.equal(try await store.forgetPreference("last-open-chat"), true, "forgetting it")
        try expect.equal(try await store.preference("last-open-chat"), nil, "the forgotten kind")
        try expect.equal(try await store.preference("layout"), other, "another kind")
    }

    static let aPreferenceAboutASubjectIsRefused = Case(
        "a chats preference about a subject is refused, and the kept one stays"
    ) { make, expect in
        let store = try await make()
        let kept = try KeptSamples.record("last-open-chat", about: nil, at: 1)
        try await store.keepPreference(kept)
        try await expect.throwsError(KeptError.self, "keepPreference", where: { $0.code == .refused }) {
            try await store.keepPreference(
                try KeptSamples.record("last-open-chat", about: try KeptSamples.subject(1), at: 2))
        }
        try expect.equal(try await store.preference("last-open-chat"), kept, "the kept preference")
    }
}
