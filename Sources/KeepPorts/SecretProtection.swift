/// How well a secrets adapter protects what it holds, so the app can say so honestly.
///
/// A richer answer than yes or no: on Linux the Secret Service is an OS keyring
/// encrypted by the login password, which is real protection but not hardware, and an
/// app that said "hardware-backed" there would be lying.
public enum SecretProtection: String, Sendable, CaseIterable, Codable {
    /// Held by a hardware-backed keystore (Secure Enclave, StrongBox).
    case hardware
    /// Held by the operating system's keyring, encrypted at rest by the login password.
    case osKeyring
    /// Held in this process's memory only: gone when it exits, never written anywhere.
    case processMemory

    /// True only for ``hardware``.
    public var isHardwareBacked: Bool { self == .hardware }

    /// Whether a secret set through this adapter outlives the process.
    public var persists: Bool { self != .processMemory }

    /// One line for a settings screen.
    public var summary: String {
        switch self {
        case .hardware: "hardware-backed keychain"
        case .osKeyring: "OS keyring (encrypted by your login password; not hardware-backed)"
        case .processMemory: "process memory only (not saved anywhere; gone when keep exits)"
        }
    }
}
