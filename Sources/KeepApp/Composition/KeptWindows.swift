import KeepEngines
import KeepKeptData

/// The context windows kept data knows (its engines owner, ``KeptData/engines``), opened only
/// when the remote engine first asks for one: a server with a budget of its own, or the echo
/// engine, never opens kept data for it.
///
/// Kept data rather than the servers file, because a window is a reading (what a server said,
/// and when), not the user's choice: it is sealed with the other readings about the server,
/// read again when old, pruned by their retention and deleted by `keep engines forget URL`;
/// the servers file stays what the user wrote (`--context`, which always wins). When kept
/// data cannot be opened at all, there is no window: no budget, never an error.
struct KeptWindows: ContextWindowSource {
    /// Opens kept data's engines owner (once per process: the composition root keeps it).
    let open: @Sendable () async -> EnginesKeeper?

    func window(
        _ query: ContextWindowQuery, authority: String?, edge: EdgePolicy,
        readKey: @escaping @Sendable () async throws(EngineError) -> APIKey?
    ) async -> ContextWindow? {
        await open()?.window(query, authority: authority, edge: edge, readKey: readKey)
    }
}
