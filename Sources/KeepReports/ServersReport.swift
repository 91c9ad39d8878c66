import KeepApp
import KeepCore
import KeepEngines

/// What `keep servers` shows (and prints with `--json`): every server, the default marked,
/// and the entries of the servers file that are not used.
///
/// ```json
/// { "default" : "local",
///   "servers" : [ { "context" : { "source" : "setting", "tokens" : 8192 }, "contextTokens" : 8192,
///                   "default" : true, "key" : { "account" : "default", "slot" : "openai" },
///                   "model" : "qwen3", "name" : "local", "protocol" : "openai", "url" : "http://127.0.0.1:8080/v1" },
///                 { "ca" : "/home/me/lab-ca.pem",
///                   "context" : { "readAt" : "2026-05-01T09:12:44.120Z", "source" : "model list", "tokens" : 200000 },
///                   "default" : false, "key" : { "account" : "default", "slot" : "anthropic" },
///                   "model" : "claude-sonnet-4-5", "name" : "claude", "protocol" : "anthropic",
///                   "url" : "https://api.anthropic.com/v1" } ],
///   "refused" : [ { "entry" : "servers.old", "reason" : "its url is refused: it is not a URL" } ] }
/// ```
///
/// `ca` and `contextTokens` (the setting) are left out when the server has none. `context`
/// is the budget a question to the server's model gets and where it came from: `setting`,
/// `model list` (with when the list said so; kept data's reading, never asked for this
/// listing) or `none` (no `tokens`). `refused` is `[]` when every entry is used. A key is
/// named by its slot and account, never shown.
package struct ServersReport: Codable, Sendable, Equatable {
    /// Where a server's key is read from.
    package struct Key: Codable, Sendable, Equatable {
        package let slot: String
        package let account: String
    }

    /// A server's context budget and where it came from.
    package struct Context: Codable, Sendable, Equatable {
        /// The tokens one request may carry; absent for none.
        package let tokens: Int?
        /// `setting`, `model list` or `none`.
        package let source: String
        /// When the model list said so (`UTCTime`), for `model list`.
        package let readAt: String?

        /// The report of `limit`.
        package init(_ limit: ContextBudget.Limit) {
            tokens = limit.tokens
            source = limit.source.rawValue
            readAt = limit.readAt.map(UTCTime.text)
        }
    }

    /// One server.
    package struct Server: Codable, Sendable, Equatable {
        package let name: String
        package let url: String
        package let `protocol`: String
        package let key: Key
        package let model: String
        package let ca: String?
        package let contextTokens: Int?
        /// The budget its model gets, and where it came from.
        package let context: Context
        /// Whether it is the server asked when none is named.
        package let `default`: Bool
    }

    /// An entry of the file that is not used, and why.
    package struct Refused: Codable, Sendable, Equatable {
        package let entry: String
        package let reason: String
    }

    /// The name of the server asked when none is named.
    package let `default`: String
    package let servers: [Server]
    package let refused: [Refused]

    /// The report of `book`, each server's budget its setting, else the window `learned`
    /// names for it (by server name: what its model list said, kept), else none.
    package init(_ book: ServerBook, learned: [String: ContextWindow] = [:]) {
        let chosen = book.profiles.defaultServer
        `default` = chosen
        servers = book.servers.map {
            let window = learned[$0.name]
            let limit =
                $0.contextTokens.map { ContextBudget.Limit(tokens: $0, source: .setting) }
                ?? ContextBudget.Limit(tokens: window?.tokens, source: .modelList, readAt: window?.readAt)
            return Server(
                name: $0.name, url: $0.url, protocol: $0.wire.rawValue,
                key: Key(slot: $0.key.slot.rawValue, account: $0.key.account), model: $0.model, ca: $0.authority,
                contextTokens: $0.contextTokens, context: Context(limit), default: $0.name == chosen)
        }
        refused = Self.refusals(book.profiles, in: "servers")
    }

    /// The refusals of `profiles` in `section` (and of the top-level fields, for servers).
    static func refusals(_ profiles: Profiles, in section: String) -> [Refused] {
        profiles.refusals.filter {
            $0.entry == section || $0.entry.hasPrefix(section + ".") || (section == "servers" && $0.entry == "default")
        }.map { Refused(entry: $0.entry, reason: $0.reason) }
    }
}
