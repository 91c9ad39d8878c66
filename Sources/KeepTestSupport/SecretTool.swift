import Foundation

/// `secret-tool`, libsecret's own command-line client: an independent witness of what
/// Keep put in the keyring, and a second writer Keep must read.
package struct SecretTool {
    /// The environment it runs in: a private bus's, or this process's (the session keyring).
    package let environment: [String: String]?

    /// The client, run in `environment` (a private bus's), or in this process's when `nil`.
    package init(environment: [String: String]?) {
        self.environment = environment
    }

    /// Whether `secret-tool` is on `PATH`; a test that needs it is skipped without it.
    package static var isInstalled: Bool { ToolRun.isInstalled("secret-tool") }

    /// Stores `value` under `attributes` (a dictionary, or name-value pairs in order), as a
    /// user would at a shell.
    package func store(
        label: String, _ attributes: some Sequence<(key: String, value: String)>, value: String
    ) async throws {
        try await ToolRun.run(
            "secret-tool", ["store", "--label=\(label)"] + Self.arguments(attributes), environment: environment,
            input: Data(value.utf8)
        ).succeeded("secret-tool store")
    }

    /// The value stored under `attributes`, or `nil` when secret-tool finds none.
    package func lookup(_ attributes: some Sequence<(key: String, value: String)>) async throws -> String? {
        let result = try await ToolRun.run(
            "secret-tool", ["lookup"] + Self.arguments(attributes), environment: environment)
        if result.status == 1 && result.output.isEmpty { return nil }
        return try result.succeeded("secret-tool lookup").output
    }

    /// What `secret-tool search --all` reports for `attributes`: how many items match, and
    /// every value of each attribute across them.
    package func search(_ attributes: some Sequence<(key: String, value: String)>) async throws -> SearchResult {
        let result = try await ToolRun.run(
            "secret-tool", ["search", "--all"] + Self.arguments(attributes), environment: environment)
        // Finding nothing is exit status 1 with nothing printed.
        if result.status == 1 && result.output.isEmpty { return SearchResult(count: 0, attributes: [:]) }
        try result.succeeded("secret-tool search")
        // Each item starts with its path in brackets on standard output; its attributes
        // go to standard error as `attribute.NAME = VALUE`.
        let count = result.output.split(separator: "\n").filter { $0.hasPrefix("[") }.count
        var values: [String: [String]] = [:]
        for line in result.errors.split(separator: "\n") where line.hasPrefix("attribute.") {
            guard let equals = line.range(of: " = ") else { continue }
            let name = line[line.index(line.startIndex, offsetBy: "attribute.".count)..<equals.lowerBound]
            values[String(name), default: []].append(String(line[equals.upperBound...]))
        }
        return SearchResult(count: count, attributes: values)
    }

    private static func arguments(_ attributes: some Sequence<(key: String, value: String)>) -> [String] {
        attributes.flatMap { [$0.key, $0.value] }
    }
}

/// What `secret-tool search --all` found.
package struct SearchResult {
    /// How many items matched.
    package let count: Int
    /// Every value each attribute has across the items found.
    package let attributes: [String: [String]]
}
