/// One figure a scenario measured once rather than sampled (a peak memory, a file's size),
/// reported beside its tables and judged by the targets like a ratio.
struct Fact: Sendable, Codable {
    /// What it is: `"peak memory of keep chats --json, 10,000 chats"`.
    let name: String
    let value: Double
    /// `"KiB"`, `"bytes per chat"`.
    let unit: String
}
