import Foundation
import KeepEngines

/// A server's model list, as the engines module keeps it: each model's name and when
/// Keep first saw it listed, so that "new since you looked" can be worked out.
///
/// `since` is when this list's memory begins: the first reading after none was kept (the
/// first ever, or the first after retention pruned the last). A model first seen then
/// may have been listed long before.
package struct ModelList: Sendable, Equatable {
    /// One model the server lists.
    package struct Model: Sendable, Equatable {
        /// Its name, as the server gives it (`"llama-3.1-8b"`).
        package let id: String
        /// When Keep first saw the server list it.
        package let firstSeen: KeptInstant

        /// The model `id`, first seen listed at `firstSeen`.
        package init(id: String, firstSeen: KeptInstant) {
            self.id = id
            self.firstSeen = firstSeen
        }
    }

    /// In the order the server lists them.
    package let models: [Model]
    /// When this list's memory begins: a model first seen then may have been listed long
    /// before.
    package let since: KeptInstant

    /// The list of `models`, remembered since `since`.
    package init(models: [Model], since: KeptInstant) {
        self.models = models
        self.since = since
    }

    /// The models' names, in the server's order.
    package var ids: [String] { models.map(\.id) }

    /// The model first seen last (ties broken by name, so the answer never depends on
    /// the server's order), or `nil` for an empty list.
    var newest: Model? {
        models.max { ($0.firstSeen, $0.id) < ($1.firstSeen, $1.id) }
    }

    /// The list in an OpenAI-compatible `GET /models` body (`{"data": [{"id": …}, …]}`),
    /// read at `readAt`: a model `previous` listed keeps its first sighting, any other is
    /// first seen now. A name listed twice counts once; an empty name is skipped.
    ///
    /// `nil` when the body is not such a list (the caller says so in the health reading).
    init?(modelsBody body: [UInt8], previous: ModelList?, readAt: KeptInstant) {
        guard let listing = try? JSONDecoder().decode(Listing.self, from: Data(body)) else { return nil }
        let earlier = Dictionary(
            (previous?.models ?? []).map { ($0.id, $0.firstSeen) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var models: [Model] = []
        for entry in listing.data where !entry.id.isEmpty && seen.insert(entry.id).inserted {
            models.append(Model(id: entry.id, firstSeen: earlier[entry.id] ?? readAt))
        }
        self.init(models: models, since: previous?.since ?? readAt)
    }

    /// The list with `key` hidden in every model's name (``ServerText``): a server that
    /// puts the key it was sent into a name never gets it kept or shown.
    func hidingKey(_ key: APIKey?) -> ModelList {
        ModelList(
            models: models.map { Model(id: ServerText.hidingKey($0.id, key), firstSeen: $0.firstSeen) }, since: since)
    }

    /// What an OpenAI-compatible server answers to `GET /models`, as far as it is read.
    private struct Listing: Decodable {
        struct Entry: Decodable { let id: String }
        let data: [Entry]
    }
}

// MARK: - Kept as a reading

/// The `models` reading of the engines module: a server's model list.
///
/// Shape 1: `{"since": ms, "models": [{"id": name, "firstSeen": ms}, …]}`.
enum ModelsReading: KeptShape {
    static let kind = "models"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        struct Model: Codable {
            let id: String
            let firstSeen: Int64
        }
        let since: Int64
        let models: [Model]
    }

    static func encode(_ value: ModelList) throws(KeptError) -> [UInt8] {
        try json(
            V1(
                since: value.since.millisecondsSince1970,
                models: value.models.map { V1.Model(id: $0.id, firstSeen: $0.firstSeen.millisecondsSince1970) }))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> ModelList {
        guard version == 1 else { throw unknownVersion(version) }
        let shape = try json(V1.self, from: bytes, version: version)
        return ModelList(
            models: shape.models.map { Model(id: $0.id, firstSeen: KeptInstant(millisecondsSince1970: $0.firstSeen)) },
            since: KeptInstant(millisecondsSince1970: shape.since))
    }

    private typealias Model = ModelList.Model
}
