import KeepApp
import KeepPorts

/// What `keep key status` shows (and prints with `--json`): for each ref, whether a key is
/// stored, none is, or keep cannot tell and why; and where keys are kept.
///
/// ```json
/// { "backend" : "Secret Service (OS keyring)", "protection" : "osKeyring",
///   "keys" : [ { "account" : "default", "slot" : "openai", "state" : "stored" },
///              { "account" : "default", "slot" : "google", "state" : "unknown", "reason" : "locked",
///                "problem" : "has of google/\"default\" failed: the keyring is locked; …",
///                "advice" : "unlock the keyring …" } ],
///   "note" : "…" }
/// ```
///
/// `state` is `stored`, `none` or `unknown`; an `unknown` one has `reason` (the keyring's
/// error code: `locked`, `noService`, `noSessionBus`, `noDefaultCollection`, `backend`),
/// `problem` and `advice`. `note` says what the keys' protection is when all is well (the OS
/// keyring's: not hardware-backed); `warning` is there only when something needs the user.
/// Fields with nothing to say are left out.
package struct KeyStatusReport: Codable, Sendable, Equatable {
    /// One ref's state.
    package struct Entry: Codable, Sendable, Equatable {
        /// The keychain slot.
        package let slot: String
        /// The account within the slot.
        package let account: String
        /// `stored`, `none`, or `unknown` when the keychain could not tell.
        package let state: String
        /// For `unknown`: the keychain's error code (`locked`, `noService`, …).
        package let reason: String?
        /// For `unknown`: the keychain's error, in one line; never a key.
        package let problem: String?
        /// For `unknown`: what to do about it.
        package let advice: String?
    }

    /// Each ref asked, in the order given.
    package let keys: [Entry]
    /// What holds the keys, in a few words.
    package let backend: String
    /// `hardware`, `osKeyring` or `processMemory`.
    package let protection: String
    /// What the protection is, plainly, when nothing needs doing (the OS keyring: not
    /// hardware-backed).
    package let note: String?
    /// The backend's warning, when something needs the user (a keyring that refuses, or none).
    package let warning: String?

    /// Whether every ref's state is known (none is `unknown`).
    package var allKnown: Bool { keys.allSatisfy { $0.reason == nil } }

    /// The report of `presences` (each ref with what ``SecretsBackend/presence(of:)``
    /// said), on `backend`.
    package static func make(_ presences: [(SecretRef, KeyPresence)], backend: SecretsBackend) -> KeyStatusReport {
        let keys = presences.map { ref, presence in
            var reason: String?
            var problem: String?
            var advice: String?
            if case .unknown(let error) = presence {
                reason = error.code.description
                problem = error.description
                advice = KeyPresence.advice(error.code)
            }
            return Entry(
                slot: ref.slot.rawValue, account: ref.account, state: presence.name, reason: reason,
                problem: problem, advice: advice)
        }
        return KeyStatusReport(
            keys: keys, backend: backend.name, protection: backend.protection.rawValue,
            note: backend.protectionNote, warning: backend.warning)
    }
}
