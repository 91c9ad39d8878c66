/// The scenarios keep-bench can run, by the name `--scenario` takes, in the order they run.
enum ScenarioID: String, CaseIterable, Sendable, Codable {
    case durableWrite = "durable-write"
    case scaling
    case reads
    case concurrentWriters = "concurrent-writers"
    case sealing
    case secrets
    case startup
    case migration
    case history
    case turn
    case hugeChat = "huge-chat"

    /// One line for `--help` and for the report.
    var summary: String {
        switch self {
        case .durableWrite: "one durable write of 1 KiB and 64 KiB, against the flush floor, SQLite and others"
        case .scaling: "writing one key when the namespace already holds 10 to 100,000 keys"
        case .reads: "read latency, and listing 10,000 chats, against reading every file raw"
        case .concurrentWriters: "durable writes per second with 1, 4 and 16 writers, against SQLite"
        case .sealing: "seal and open of 1 KiB and 64 KiB through the sealing port, against raw EVP"
        case .secrets: "has, get and set on the Secret Service (run inside scripts/with-keyring)"
        case .startup: "`keep chats --json` over 10,000 chats, as a whole process"
        case .migration: "the one-time copy of a store.json of 5,000 chats, against reading it once"
        case .history:
            "listing and searching 10,000 and 40,000 chats, warm and cold, plain and sealed, against cat and grep"
        case .turn: "one turn in a chat of 1 to 2,000 turns, plain and sealed, against a raw append of the turn"
        case .hugeChat:
            "a 200 MB chat among realistic chats: listing, search, chats show and ask, against reading it once"
        }
    }
}
