import KeepFileStore
import KeepPorts
import KeepSealed

/// The chats' data key out of the keyring and back: `keep recovery export FILE` and
/// `keep recovery import FILE`, through a ``/KeepSealed/RecoveryFile`` (the key wrapped under a
/// passphrase with scrypt and AES-256-GCM, for the purpose ``purpose``).
///
/// Export writes the file new (`O_EXCL`, `0600`, never through a symbolic link, never
/// over a file that is there), flushed before it is said written. Import checks the file
/// and its purpose, opens it with the passphrase (a wrong one is one refusal that says
/// nothing of the key), and stores the key, refusing to replace a different key the
/// keyring holds unless told to. No error here names a key or a passphrase.
package struct ChatKeyRecovery: Sendable {
    /// What a recovery file of the chats' key says it is for.
    package static let purpose = "chats"

    /// What an import did.
    package enum Imported: Sendable, Equatable {
        /// The key was stored (`replaced`: over a different one).
        case stored(replaced: Bool)
        /// The keyring held this very key already.
        case alreadyThere
    }

    private let keyStore: any KeyStorePort
    private let refusal: SecretsError?

    /// Over `keyStore` (`refusal`: why it cannot be used, when it cannot).
    package init(keyStore: any KeyStorePort, refusal: SecretsError?) {
        self.keyStore = keyStore
        self.refusal = refusal
    }

    /// Writes the chats' data key, wrapped under `passphrase`, to a new file at `path`.
    package func export(to path: String, passphrase: [UInt8]) async throws(StorageError) {
        var key = try await load()
        defer { ChatSealing.wipe(&key) }
        guard !key.isEmpty else {
            throw Self.failure("export", "the keyring holds no chats' data key yet: nothing has been sealed")
        }
        let text: String
        do {
            text = try RecoveryFile.wrap(key, purpose: Self.purpose, passphrase: passphrase).text
        } catch {
            throw Self.failure("export", "the key could not be wrapped: \(error)")
        }
        let files = POSIXFileSystem()
        // O_EXCL and O_NOFOLLOW: a file or a link already at `path` is refused, never replaced.
        let file = try files.create(path, mode: 0o600)
        do {
            try files.write(file, Array(text.utf8))
            try files.flush(file)
            try files.close(file)
        } catch {
            try? files.close(file)
            try? files.unlink(path)
            throw error
        }
    }

    /// Puts the key the recovery file `text` holds back into the keyring, opened with
    /// `passphrase`; a different key already there is replaced only with `replace`.
    package func importKey(_ text: String, passphrase: [UInt8], replace: Bool) async throws(StorageError) -> Imported {
        let file: RecoveryFile
        do {
            file = try RecoveryFile(text: text)
        } catch {
            throw Self.failure("import", "it is not a recovery file keep can read: \(error)")
        }
        guard file.purpose == Self.purpose else {
            throw Self.failure(
                "import", "it is a recovery file for \(StorageError.quoted(file.purpose)), not the chats")
        }
        var key: [UInt8]
        do {
            key = try file.unwrap(passphrase: passphrase)
        } catch {
            throw Self.failure("import", "the passphrase does not open it (or the file was altered)")
        }
        defer { ChatSealing.wipe(&key) }
        var held = try await load()
        defer { ChatSealing.wipe(&held) }
        if held == key { return .alreadyThere }
        if !held.isEmpty, !replace {
            throw Self.failure(
                "import",
                "the keyring holds a different chats' data key; chats sealed under it would no longer open. Give "
                    + "--replace to put this one in its place")
        }
        do {
            try await keyStore.store(try KeyName(ChatSealing.keyName), key)
        } catch {
            throw Self.failure("import", ChatSealing.lockedLine(error))
        }
        return .stored(replaced: !held.isEmpty)
    }

    /// The key the keyring holds, empty when none.
    private func load() async throws(StorageError) -> [UInt8] {
        if let refusal { throw Self.failure("read the chats' data key", ChatSealing.lockedLine(refusal)) }
        guard keyStore.protection.persists else {
            throw Self.failure(
                "read the chats' data key", "no keyring answers: the chats' data key lives only in a keyring")
        }
        do {
            return try await keyStore.load(try KeyName(ChatSealing.keyName)) ?? []
        } catch {
            throw Self.failure("read the chats' data key", ChatSealing.lockedLine(error))
        }
    }

    private static func failure(_ operation: String, _ reason: String) -> StorageError {
        StorageError(code: .unavailable, operation: operation, reason: reason)
    }

}
