import Foundation
import KeepCore

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
public struct EnginesReport: Codable, Sendable, Equatable {
    public struct Models: Codable, Sendable, Equatable {
        public let count: Int
        public let ids: [String]
        public let readAt: String
        public let ageSeconds: Int64
        public let fresh: Bool
    }

    public struct Health: Codable, Sendable, Equatable {
        public let reachable: Bool
        public let latencyMs: Int64?
        public let status: Int?
        public let says: String?
        public let problem: String?
        public let readAt: String
        public let ageSeconds: Int64
        public let fresh: Bool
    }

    public struct Server: Codable, Sendable, Equatable {
        public let address: String
        /// Whether it is the server the `baseUrl` setting names.
        public let current: Bool
        public let models: Models?
        public let health: Health?
    }

    /// Whether readings outlive this run.
    public let kept: Bool
    /// Where kept data lives, or why nothing is kept.
    public let keptStatus: String
    public let retention: String?
    public let retentionDays: Int?
    public let servers: [Server]

    public init(
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
