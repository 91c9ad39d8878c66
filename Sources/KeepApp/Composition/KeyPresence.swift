import KeepPorts

/// Whether a key is stored under a ref, as far as keep can tell this time: one of three
/// states, and never "none" for a keychain that could not be asked.
///
/// ``SecretsBackend/presence(of:)`` decides; `keep key status`, `keep settings`,
/// `keep doctor`, the first screen of `keep` and `keep ask` all say what it says.
package enum KeyPresence: Sendable, Equatable {
    /// A key is stored (in the keyring, or for this run only from the environment when no
    /// keyring answers).
    case stored
    /// The keyring answered: no key is stored under the ref.
    case none
    /// The keyring could not be asked (locked, no daemon answering, no Secret Service, no
    /// session bus), and why: a key may well be stored there.
    case unknown(SecretsError)

    /// `stored`, `none` or `unknown`: the state's name in `--json` output.
    package var name: String {
        switch self {
        case .stored: "stored"
        case .none: "none"
        case .unknown: "unknown"
        }
    }

    /// The words `keep key status` shows for the state, beside the ref.
    package var summary: String {
        switch self {
        case .stored: "configured"
        case .none: "not set"
        case .unknown(let error): "cannot tell: \(Self.trouble(error.code))"
        }
    }

    /// Why the keyring could not be asked, in a few words, and what to do about it: the
    /// one table of the keyring's states that cannot tell.
    package static func trouble(_ code: SecretsError.Code) -> String {
        switch code {
        case .locked: "the keyring is locked"
        case .noDefaultCollection: "the keyring has no default collection"
        case .noService: "no Secret Service answers"
        case .noSessionBus: "there is no D-Bus session bus"
        default: "the keyring failed"  // .invalidRef, .notPersistent, .backend, and any code to come
        }
    }

    /// What to do when the keyring could not be asked for the reason `code`.
    package static func advice(_ code: SecretsError.Code) -> String {
        switch code {
        case .locked:
            "unlock the keyring (log in to the desktop, or unlock it in your keyring tool, such as Seahorse), then "
                + "run keep again; keep never unlocks it for you, and uses no other key meanwhile"
        case .noDefaultCollection:
            "make a default keyring (Seahorse, or `gnome-keyring-daemon --components=secrets --unlock`), then run "
                + "keep again"
        case .noService, .noSessionBus:
            SecretsBackend.keyringAdvice
        default:  // .invalidRef, .notPersistent, .backend, and any code to come
            "check the keyring (is its daemon running?), then run keep again"
        }
    }
}
