import Foundation

/// `secret-tool`, libsecret's own command-line client: an independent witness of what
/// Keep put in the keyring, and a second writer Keep must read.
struct SecretTool {
    /// The environment it runs in: a private bus's, or this process's (the session keyring).
    let environment: [String: String]?

    static var isInstalled: Bool { Command.isInstalled("secret-tool") }

    /// Stores `value` under `attributes`, as a user would at a shell.
    func store(label: String, _ attributes: KeyValuePairs<String, String>, value: String) async throws {
        try await Command.run(
            "secret-tool", ["store", "--label=\(label)"] + Self.arguments(attributes), environment: environment,
            input: Data(value.utf8)
        ).succeeded("secret-tool store")
    }

    /// The value stored under `attributes`, or `nil` when secret-tool finds none.
    func lookup(_ attributes: KeyValuePairs<String, String>) async throws -> String? {
        let result = try await Command.run(
            "secret-tool", ["lookup"] + Self.arguments(attributes), environment: environment)
        if result.status == 1 && result.output.isEmpty { return nil }
        return try result.succeeded("secret-tool lookup").output
    }

    /// The attributes of every item matching `attributes`, one dictionary per item.
    func search(_ attributes: KeyValuePairs<String, String>) async throws -> [[String: String]] {
        let result = try await Command.run(
            "secret-tool", ["search", "--all"] + Self.arguments(attributes), environment: environment)
        // Finding nothing is exit status 1 with nothing printed.
        if result.status == 1 && result.output.isEmpty { return [] }
        var items: [[String: String]] = []
        for line in try result.succeeded("secret-tool search").output.split(separator: "\n") {
            if line.hasPrefix("[") {
                items.append([:])
            } else if line.hasPrefix("attribute."), let equals = line.range(of: " = "), !items.isEmpty {
                let name = line[line.index(line.startIndex, offsetBy: "attribute.".count)..<equals.lowerBound]
                items[items.count - 1][String(name)] = String(line[equals.upperBound...])
            }
        }
        return items
    }

    private static func arguments(_ attributes: KeyValuePairs<String, String>) -> [String] {
        attributes.flatMap { [$0.key, $0.value] }
    }
}
