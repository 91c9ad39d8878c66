import KeepPorts

/// What the chats' sealing is given of the keychain by the composition root: where their
/// data key is kept, why that store cannot be asked (when it cannot), and the platform's
/// sealer, which makes the key and names it (its key check).
package struct ChatKeys: Sendable {
    /// Where the chats' data key is kept.
    package let store: any KeyStorePort
    /// Why the keyring, which ``store`` is, refuses now (locked, no default collection,
    /// failing), when it does.
    package let refusal: SecretsError?
    /// Why no keyring answers, when ``store`` is one that forgets at exit (process memory).
    package let unavailable: SecretsError?
    /// The platform's sealer for data keys: their size, a new one, and a key's check.
    package let sealing: any DataKeySealing

    /// The keys in `store`, sealed with `sealing`: `refusal`, why the keyring refuses, and
    /// `unavailable`, why none answers, when so.
    package init(
        store: any KeyStorePort, refusal: SecretsError?, unavailable: SecretsError?, sealing: any DataKeySealing
    ) {
        self.store = store
        self.refusal = refusal
        self.unavailable = unavailable
        self.sealing = sealing
    }
}
