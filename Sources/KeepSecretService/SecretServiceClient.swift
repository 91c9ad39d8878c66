import Dispatch
import KeepPorts

/// Keep's items on the Secret Service, as both adapters use them: has, read, write, remove.
///
/// libsecret's calls block while they wait for D-Bus, so they run on a serial queue of this
/// client's own, never on Swift's cooperative pool; each async method waits for its call
/// with a continuation. The queue also confines the ``LibSecretConnection``, which is not
/// thread-safe.
///
/// Every error is re-labelled with the caller's operation and ref, keeping its code and
/// detail, so a message says `get of openai/"work" failed: ...`.
final class SecretServiceClient: @unchecked Sendable {
    // @unchecked: `connection` is only ever touched on `queue`, which serialises it.
    private let connection: LibSecretConnection
    private let queue = DispatchQueue(label: "keep.secret-service")

    init(bus: BusAddress) {
        connection = LibSecretConnection(bus: bus)
    }

    /// Throws unless the service answers and its default collection is there and unlocked.
    func checkAvailable(operation: String) async throws(SecretsError) {
        try await perform(operation, nil) { connection throws(SecretsError) in
            try connection.requireDefaultCollection()
        }
    }

    /// Whether an item matches `query`, found by a search that loads no secret.
    func has(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) -> Bool {
        try await perform(operation, ref) { connection throws(SecretsError) in
            try !connection.search(query, loadingSecret: false).isEmpty
        }
    }

    /// The secret of the item matching `query`, or `nil` when there is none; an item that
    /// exists only in a locked collection is ``SecretsError/Code/locked``, not `nil`.
    func read(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) -> [UInt8]? {
        try await perform(operation, ref) { connection throws(SecretsError) in
            let items = try connection.search(query, loadingSecret: true)
            if let secret = items.first(where: { !$0.locked })?.secret { return secret }
            if items.isEmpty { return nil }
            throw SecretsError(
                code: .locked, operation: operation, ref: ref,
                detail: "the item is in a locked keyring; unlock it and retry. Keep never unlocks it for you")
        }
    }

    /// Stores `secret` as the one item matching `query`: a new item in the default
    /// collection, then every other unlocked item with exactly the same attributes (keep's
    /// older one, or one `secret-tool` stored) is deleted, so a read never has two answers.
    /// An item that only shares some attributes (another application's) is never touched;
    /// a locked one in another collection is left alone: reads prefer unlocked items.
    func write(
        _ query: ItemQuery, label: String, _ secret: SecretPayload, operation: String, ref: SecretRef?
    ) async throws(SecretsError) {
        try await perform(operation, ref) { connection throws(SecretsError) in
            let path = try connection.create(query, label: label, secret: secret)
            _ = try connection.delete(query, except: path)
        }
    }

    /// Deletes every item matching `query`; none is fine, a locked one is an error.
    func remove(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) {
        try await perform(operation, ref) { connection throws(SecretsError) in
            let lockedLeft = try connection.delete(query, except: nil)
            if lockedLeft > 0 {
                throw SecretsError(
                    code: .locked, operation: operation, ref: ref,
                    detail: "\(lockedLeft) matching item(s) are in a locked keyring; unlock it and retry")
            }
        }
    }

    /// Runs `body` on the queue and waits for it; relabels its error with `operation` and `ref`.
    private func perform<T: Sendable>(
        _ operation: String, _ ref: SecretRef?,
        _ body: @escaping @Sendable (LibSecretConnection) throws(SecretsError) -> T
    ) async throws(SecretsError) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, SecretsError>, Never>) in
            queue.async {
                continuation.resume(returning: Result { () throws(SecretsError) -> T in try body(self.connection) })
            }
        }
        return try result.mapError { SecretsError(code: $0.code, operation: operation, ref: ref, detail: $0.detail) }
            .get()
    }
}
