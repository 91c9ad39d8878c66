import KeepPorts

/// Keep's items on the Secret Service, as both adapters use them: has, read, write, remove.
///
/// libsecret's calls block while they wait for D-Bus, and its connection is not
/// thread-safe: so the client is an actor on a thread of its own (a `DedicatedThread`: what
/// must stay on one thread, or may wait without bound, gets a thread of its own), never on
/// Swift's cooperative pool. The connection is the actor's state; a caller awaiting a call
/// holds no thread.
///
/// Every error is re-labelled with the caller's operation and ref, keeping its code and
/// detail, so a message says `get of openai/"work" failed: ...`.
actor SecretServiceClient {
    private let connection: LibSecretConnection
    /// The thread every call runs on: the actor's executor.
    private nonisolated let thread = DedicatedThread(name: "keep.secret-service")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    init(bus: BusAddress) {
        connection = LibSecretConnection(bus: bus)
    }

    deinit {
        thread.stop()
    }

    /// Throws unless the service answers and its default collection is there and unlocked.
    func checkAvailable(operation: String) async throws(SecretsError) {
        try perform(operation, nil) { connection throws(SecretsError) in
            try connection.requireDefaultCollection()
        }
    }

    /// Whether an item matches `query`, found by a search that loads no secret.
    func has(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) -> Bool {
        try perform(operation, ref) { connection throws(SecretsError) in
            try !connection.search(query, loadingSecret: false).isEmpty
        }
    }

    /// The secret of the item matching `query`, or `nil` when there is none; an item that
    /// exists only in a locked collection is ``SecretsError/Code/locked``, not `nil`.
    func read(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) -> [UInt8]? {
        try perform(operation, ref) { connection throws(SecretsError) in
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
        try perform(operation, ref) { connection throws(SecretsError) in
            let path = try connection.create(query, label: label, secret: secret)
            _ = try connection.delete(query, except: path)
        }
    }

    /// Deletes every item matching `query`; none is fine, a locked one is an error.
    func remove(_ query: ItemQuery, operation: String, ref: SecretRef?) async throws(SecretsError) {
        try perform(operation, ref) { connection throws(SecretsError) in
            let lockedLeft = try connection.delete(query, except: nil)
            if lockedLeft > 0 {
                throw SecretsError(
                    code: .locked, operation: operation, ref: ref,
                    detail: "\(lockedLeft) matching item(s) are in a locked keyring; unlock it and retry")
            }
        }
    }

    /// Runs `body` on the connection; relabels its error with `operation` and `ref`.
    private func perform<T: Sendable>(
        _ operation: String, _ ref: SecretRef?, _ body: (LibSecretConnection) throws(SecretsError) -> T
    ) throws(SecretsError) -> T {
        do {
            return try body(connection)
        } catch {
            throw SecretsError(code: error.code, operation: operation, ref: ref, detail: error.detail)
        }
    }
}
