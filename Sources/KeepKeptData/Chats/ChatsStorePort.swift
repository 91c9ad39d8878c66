/// Where the chats module keeps its preferences: a port it declares, taking and
/// returning only ``KeptRecord``s, so its store never sees what it keeps.
///
/// Every implementation promises, and the chats store contract checks: one preference
/// per kind, keeping one replaces the earlier; records read back exactly as kept;
/// forgetting one kind leaves the others. A chats preference is about the whole module:
/// one with a subject is a typed ``KeptError/Code/refused`` error. A failing store
/// throws ``KeptError``.
package protocol ChatsStorePort: Sendable {
    /// Keeps `preference` as the preference of its kind.
    func keepPreference(_ preference: KeptRecord) async throws(KeptError)

    /// The preference of `kind`, or `nil`.
    func preference(_ kind: String) async throws(KeptError) -> KeptRecord?

    /// Deletes the preference of `kind`; answers whether there was one.
    @discardableResult
    func forgetPreference(_ kind: String) async throws(KeptError) -> Bool
}
