import Foundation
import KeepChatIndex
import KeepCore
import KeepFileStore

/// The chat index built, over and over, until the process is killed: each round removes
/// the index and searches, so the index is built again a small batch at a time (eight
/// chats), and `ack DONE TOTAL` is reported after each batch is committed, `done` after
/// each search. The chats themselves (under ROOT, made by the test) are only ever read.
enum IndexWriter {
    /// What each search looks for: a word every chat the test makes holds.
    static let word = "lighthouse"

    static func run(_ run: TortureRun) async {
        do {
            let store = try FileStore(root: run.path)
            var limits = ChatIndex.Limits()
            limits.batchChats = 8
            limits.inlineText = 0
            let index = ChatIndex(
                root: run.path, storage: store,
                progress: { done, total in TortureRun.emit("ack \(done) \(total)") }, limits: limits)
            TortureRun.emit("ready")
            while true {
                _ = try await index.search(Self.word)
                TortureRun.emit("done")
                for suffix in ["", "-wal", "-shm"] { unlink(index.path + suffix) }
            }
        } catch {
            TortureRun.fail(error)
        }
    }
}
