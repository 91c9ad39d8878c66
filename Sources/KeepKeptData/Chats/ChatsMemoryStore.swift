/// The chats store in process memory: the fake the chats store contract proves alongside
/// the SQLite store, and what the module keeps in when nothing may be kept between
/// launches.
package actor ChatsMemoryStore: ChatsStorePort {
    private var preferences: [String: KeptRecord] = [:]

    package init() {}

    package func keepPreference(_ preference: KeptRecord) throws(KeptError) {
        guard preference.subject == nil else {
            throw .refused("keep a chats preference", "a chats preference is about no subject, and this one names one")
        }
        preferences[preference.kind] = preference
    }

    package func preference(_ kind: String) -> KeptRecord? {
        preferences[kind]
    }

    package func forgetPreference(_ kind: String) -> Bool {
        preferences.removeValue(forKey: kind) != nil
    }
}
