import KeepPorts

/// The code of the KeepPorts article ("Using the ports") and of the README's tour,
/// compiled here so that neither can drift from code that builds.
enum PortsSnippets {
    /// Writes `serializedChat` under `chats`/`c1` of a memory store and reads it back.
    static func storeAValue(_ serializedChat: String) async throws -> String? {
        let storage: any StoragePort = MemoryStorage()
        try await storage.write(StorageKey(.chats, "c1"), serializedChat)
        let raw = try await storage.read(StorageKey(.chats, "c1"))  // nil when absent
        return raw
    }

    /// Writes a chat's head line and appends a turn's line, then asks, without reading it,
    /// whether the value changed since its stamp was `lastSeen`.
    static func appendAndStamp(
        _ storage: any StoragePort, headLine: String, turnLine: String, lastSeen: ValueStamp?
    ) async throws {
        let chat = StorageKey(.chats, "c1")
        try await storage.write(chat, headLine + "\n")
        let appended = try await storage.append(chat) { _ in turnLine }  // false: no such value
        if let stamped = storage as? any StampedStorage {
            let changed = try await stamped.stamp(chat) != lastSeen  // nothing read
            print(appended, changed)
        }
    }

    /// What a person is told for `error`: the kind of failure, then the facts.
    static func explain(_ error: StorageError) -> String {
        switch error.code {
        case .full: "the disk is full: \(error)"
        case .unavailable: "the disk refused: \(error)"
        case .corrupt: "this one value cannot be read: \(error)"
        default: "\(error)"  // .invalidId, .unknownNamespace, .io, and codes to come
        }
    }

    /// Stores `apiKey` in `secrets`, checks it is there without loading it, reads and
    /// removes it; answers whether it was configured and the value read.
    static func keepASecret(_ secrets: any SecretsPort, _ apiKey: String) async throws -> (Bool, String?) {
        let ref = SecretRef(.openrouter, account: "work")
        try await secrets.set(ref, apiKey)
        let configured = try await secrets.has(ref)  // never loads the value
        let value = try await secrets.get(ref)  // nil when never set
        try await secrets.delete(ref)  // deleting an absent secret succeeds too
        if !secrets.protection.persists {
            print("keys are held in this process only: \(secrets.protection.summary)")
        }
        return (configured, value)
    }
}
