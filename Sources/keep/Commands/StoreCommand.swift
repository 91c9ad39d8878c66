import KeepApp
import KeepCLI
import KeepCore
import KeepPorts

/// `keep store`: the raw store, one value per namespace and id, for scripts.
enum StoreCommand {
    static let command = Command(
        "store", summary: "Read and write the raw store, for scripts",
        help: "Namespaces: \(namespaces). Values are text, exactly as stored (a chat is its JSON). This goes "
            + "around keep's own checks: prefer the other commands for chats and settings.",
        examples: [
            "keep store ls chats": "List the ids of the chats as stored:"
        ],
        subcommands: [get, put, remove, list, clear])

    static let get = Command(
        "get", summary: "Print the value at NAMESPACE/ID (exit 1 when there is none)",
        examples: [
            "keep store get settings settings": "Print the settings file:"
        ],
        arguments: ArgumentParser(required: ["NAMESPACE", "ID"]), run: getValue)

    static let put = Command(
        "put", summary: "Store standard input as the value at NAMESPACE/ID",
        examples: [
            "keep store put settings settings < saved.json": "Put back a copy of the settings file, unchecked:"
        ],
        arguments: ArgumentParser(required: ["NAMESPACE", "ID"]), run: putValue)

    static let remove = Command(
        "rm", summary: "Remove the value at NAMESPACE/ID",
        examples: [
            "keep store rm cache migrated-from-store-json": "Have store.json copied again at the next launch:"
        ],
        arguments: ArgumentParser(required: ["NAMESPACE", "ID"]), run: removeValue)

    static let list = Command(
        "ls", summary: "List the ids in NAMESPACE, one per line, sorted",
        examples: [
            "keep store ls drafts": "List the ids in the drafts namespace:"
        ],
        arguments: ArgumentParser(required: ["NAMESPACE"]), run: listIds)

    static let clear = Command(
        "clear", summary: "Remove every value in NAMESPACE",
        examples: [
            "keep store clear cache": "Empty the cache namespace (its migration marker stays):"
        ],
        arguments: ArgumentParser(required: ["NAMESPACE"]), run: clearNamespace)

    private static var namespaces: String { Namespace.allCases.map(\.rawValue).joined(separator: ", ") }

    static func getValue(_ invocation: Invocation) async throws {
        let key = try self.key(invocation)
        guard let value = try await storage(invocation).read(key) else {
            throw CommandFailure.failure("there is no value at \(key)")
        }
        // A value is printed as it is, like cat, except to a terminal, which it must not control.
        if invocation.console.outputIsTerminal { invocation.console.show(value) } else { invocation.console.out(value) }
    }

    static func putValue(_ invocation: Invocation) async throws {
        let key = try self.key(invocation)
        let value = try invocation.console.readAllInput()
        try await storage(invocation).write(key, value)
    }

    static func removeValue(_ invocation: Invocation) async throws {
        try await storage(invocation).remove(try key(invocation))
    }

    static func listIds(_ invocation: Invocation) async throws {
        let ids = try await storage(invocation).listIds(try namespace(invocation)).sorted()
        invocation.console.show(ids.map { $0 + "\n" }.joined())
    }

    static func clearNamespace(_ invocation: Invocation) async throws {
        let namespace = try namespace(invocation)
        let storage = try await storage(invocation)
        guard namespace == .cache, try await storage.read(MigrationMarker.key) != nil else {
            return try await storage.clear(namespace)
        }
        // The one-time migration's done-marker stays: without it store.json would be copied
        // again at the next launch, bringing back every chat removed since.
        for id in try await storage.listIds(.cache) where StorageKey(.cache, id) != MigrationMarker.key {
            try await storage.remove(StorageKey(.cache, id))
        }
        invocation.console.warning(
            "\(MigrationMarker.key) is kept: it records that store.json was copied, once; "
                + "`keep store rm cache \(MigrationMarker.key.id)` removes it (store.json is then copied again)")
    }

    // MARK: - Arguments

    private static func namespace(_ invocation: Invocation) throws(CommandFailure) -> Namespace {
        let name = invocation.positional(0) ?? ""
        guard let namespace = Namespace(rawValue: name) else {
            throw .usage("\(StorageError.quoted(name)) is not a namespace; the namespaces are \(namespaces)")
        }
        return namespace
    }

    private static func key(_ invocation: Invocation) throws(CommandFailure) -> StorageKey {
        StorageKey(try namespace(invocation), invocation.positional(1) ?? "")
    }

    private static func storage(_ invocation: Invocation) async throws(CommandFailure) -> any StoragePort {
        try await ChatsCommand.storage(invocation)
    }
}
