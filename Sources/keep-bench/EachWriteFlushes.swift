import KeepFileStore
import KeepPorts

/// The file store's directory flushing without group commit: every write flushes its
/// directory itself, as the store did before. The concurrent-writers scenario runs it beside
/// the real store, so every run shows what sharing the flush buys.
struct EachWriteFlushes: DirectoryFlushing {
    func flushed(
        _ directory: String, by flush: @escaping @Sendable () async throws(StorageError) -> Void
    )
        async throws(StorageError)
    {
        try await flush()
    }
}
