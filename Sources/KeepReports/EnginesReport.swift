import Foundation
import KeepApp
import KeepCore
import KeepKeptData

/// What `keep engines --json` prints: where kept data lives, how long readings are kept,
/// and each server keep has read, with its newest readings, each dated and marked fresh
/// (read by this run) or kept (from an earlier one).
///
/// ```json
/// { "kept" : true, "keptStatus" : "sealed in /home/me/.local/share/keep/kept.sqlite, …",
///   "retention" : "30 days", "retentionDays" : 30,
///   "servers" : [ { "address" : "http://127.0.0.1:8080/v1", "current" : true,
///                   "health" : { "ageSeconds" : 0, "fresh" : true, "latencyMs" : 4, "reachable" : true,
///                                "readAt" : "2025-06-14T15:30:12.345Z", "says" : "llama.cpp", "status" : 200 },
///                   "models" : { "ageSeconds" : 0, "count" : 2, "fresh" : true, "ids" : [ "a", "b" ],
///                                "readAt" : "2025-06-14T15:30:12.345Z" } } ] }
/// ```
///
/// `retentionDays` is left out when readings are kept until the server is forgotten, and
/// `retention` when the kept choice cannot be read; a reading never kept is left out.
package struct EnginesReport: Codable, Sendable, Equatable {
    /// The newest model list kept for a server.
    package struct Models: Codable, Sendable, Equatable {
        /// How many models the server lists.
        package let count: Int
        /// Their names, in the server's order.
        package let ids: [String]
        /// When the list was read, in UTC.
        package let readAt: String
        /// How long ago it was read, in whole seconds.
        package let ageSeconds: Int64
        /// True when read by this run; false when kept from an earlier one.
        package let fresh: Bool
    }

    /// The newest health reading kept for a server.
    package struct Health: Codable, Sendable, Equatable {
        /// Whether an HTTP answer came at all.
        package let reachable: Bool
        /// How long the answer took, in milliseconds, when one came.
        package let latencyMs: Int64?
        /// The answer's HTTP status, when one came.
        package let status: Int?
        /// What the server says about itself (its `Server` header), when it says anything.
        package let says: String?
        /// Why the server is not usable as it stands, when it is not.
        package let problem: String?
        /// When the server was read, in UTC.
        package let readAt: String
        /// How long ago it was read, in whole seconds.
        package let ageSeconds: Int64
        /// True when read by this run; false when kept from an earlier one.
        package let fresh: Bool
    }

    /// One server keep has read, with its newest readings.
    package struct Server: Codable, Sendable, Equatable {
        /// The server's address in its one spelling (``ServerAddress``).
        package let address: String
        /// Whether it is the server the `baseUrl` setting names.
        package let current: Bool
        /// Its model list, when one is kept.
        package let models: Models?
        /// Its health, when a reading is kept.
        package let health: Health?
    }

    /// Whether readings outlive this run.
    package let kept: Bool
    /// Where kept data lives, or why nothing is kept.
    package let keptStatus: String
    /// How long readings are kept, in words (`30 days`); left out when the kept choice
    /// cannot be read.
    package let retention: String?
    /// The same as a number of days; left out when readings are kept until the server is
    /// forgotten.
    package let retentionDays: Int?
    /// Every server with a kept reading.
    package let servers: [Server]

    /// The report of `readings` as seen at `now`, the server `current` (the `baseUrl`
    /// setting's) marked, under the kept-data `kept` status and `retention`.
    package init(
        kept: KeptData.Status, retention: Retention?, readings: [ServerReadings], current: ServerAddress?, now: Date
    ) {
        switch kept {
        case .kept, .notYet: self.kept = true
        case .notKept, .failed: self.kept = false
        }
        keptStatus = kept.summary
        self.retention = retention?.description
        retentionDays = retention?.days
        servers = readings.map { readings in
            Server(
                address: readings.server.text, current: readings.server == current,
                models: readings.models.map { models in
                    Models(
                        count: models.value.models.count, ids: models.value.ids, readAt: UTCTime.text(models.readAt),
                        ageSeconds: models.age(now: now).seconds, fresh: models.isFresh)
                },
                health: readings.health.map { health in
                    Health(
                        reachable: health.value.reachable, latencyMs: health.value.latencyMilliseconds,
                        status: health.value.status, says: health.value.says, problem: health.value.problem,
                        readAt: UTCTime.text(health.readAt), ageSeconds: health.age(now: now).seconds,
                        fresh: health.isFresh)
                })
        }
    }
}
