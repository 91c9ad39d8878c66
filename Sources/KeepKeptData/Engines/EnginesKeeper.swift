import Foundation
import KeepCore
import KeepEngines
import KeepPorts
import KeepSealed

/// What the engines module keeps about the chat servers it talks to, and its decisions
/// about it: readings (the newest model list and health of each server), markers (the
/// newest model the user has seen) and preferences (how long readings are kept, the
/// servers in order).
///
/// It seals every value before its store sees it, through the one sealing port, and
/// opens what its store hands back; the store holds only ``KeptRecord``s. Promises:
///
/// - ``kept(_:)`` answers at once from what is kept, never from the network, each reading
///   marked as kept and dated. A reading it cannot read (a shape or kind this build does
///   not know, a payload that does not open) is discarded: the server can be read again.
/// - ``refresh(_:apiKey:keyOverHttpHosts:authority:wire:)`` reads the server, keeps a fresh health
///   reading whatever the answer, and a fresh model list only when the server gave one
///   (otherwise the kept one stays, marked as kept).
/// - ``window(_:authority:edge:readKey:)`` answers a model's context window from the kept
///   reading while it is young (``ContextWindows``), else asks the server and keeps what it
///   said, a window or none.
/// - Readings older than the retention are deleted at ``launch()`` and by
///   ``setRetention(_:)``. A preference it cannot read is left as it is and reported,
///   never replaced behind the user's back.
/// - ``forget(_:)`` deletes every row about a server and removes it from the servers.
///
/// Every failure is a typed ``KeptError``; none holds a kept value or the key.
package struct EnginesKeeper: Sendable {
    /// The engines module: the prefix of its tables, bound into everything it seals.
    package static let owner: KeptOwner = "engines"

    let store: any EnginesStorePort
    let seal: OwnerSeal
    let http: any ServerHTTPPort
    let now: @Sendable () -> Date

    package init(
        store: any EnginesStorePort, sealer: any SealingPort, http: any ServerHTTPPort,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.seal = OwnerSeal(owner: Self.owner, sealer: sealer)
        self.http = http
        self.now = now
    }

    // MARK: - Launch

    /// Brings kept data up to date at launch: rewrites preferences kept in an older shape
    /// in the current one, then deletes readings older than the retention.
    ///
    /// A preference that cannot be read is reported in the answer and left as it is; if
    /// it is the retention, nothing is pruned this time (pruning by a guess could delete
    /// readings the user chose to keep). Throws only when the store fails.
    package func launch() async throws(KeptError) -> LaunchReport {
        var upgraded: [String] = []
        var problems: [KeptError] = []
        for shape in [RetentionPreference.self, ServerOrder.self] as [any KeptShape.Type] {
            do throws(KeptError) {
                if try await upgradePreference(shape) { upgraded.append(shape.kind) }
            } catch  where error.code == .unreadable {
                problems.append(error)
            }
        }
        var pruned = 0
        do throws(KeptError) {
            pruned = try await prune(try await retention())
        } catch  where error.code == .unreadable {
            // Already reported by the upgrade above, when it is the same preference.
            if !problems.contains(error) { problems.append(error) }
        }
        return LaunchReport(
            owner: Self.owner, readingsPruned: pruned, preferencesUpgraded: upgraded, problems: problems)
    }

    // MARK: - Readings

    /// The newest kept readings about `server`, without asking it.
    package func kept(_ server: ServerAddress) async throws(KeptError) -> ServerReadings {
        let subject = try seal.subject(server)
        var readings = ServerReadings(server: server)
        for record in try await store.newestReadings(about: subject) {
            switch record.kind {
            case ModelsReading.kind: readings.models = try await openReading(ModelsReading.self, record)
            case HealthReading.kind: readings.health = try await openReading(HealthReading.self, record)
            case ContextWindowsReading.kind:
                readings.windows = try await openReading(ContextWindowsReading.self, record)
            default:
                // A kind of reading this build does not keep (a newer build's): discarded.
                try await store.discardReading(record)
            }
        }
        return readings
    }

    /// Reads `server` now (`GET {server}/models`, with `apiKey` when there is one), keeps
    /// what it says, and answers the newest readings: the health always fresh, the model
    /// list fresh when the server gave one, else the kept one.
    ///
    /// A key is never sent over plain http to a host that is not this machine unless
    /// `keyOverHttpHosts` names it (``CleartextRule``): the server is then not asked, and
    /// the health reading says why. The key is hidden in everything the server said before
    /// it is kept (its `Server` header, model ids, a redirect's address).
    ///
    /// A server with an `authority` of its own (`keep servers add --ca FILE`) is verified
    /// against that file alone; the key goes in the header of the protocol `wire` it speaks.
    ///
    /// A server that does not answer, refuses the key, redirects elsewhere or answers with
    /// something else than a model list is not an error: the fresh health reading says so.
    /// Throws only when the store or the sealer fails.
    package func refresh(
        _ server: ServerAddress, apiKey: String?, keyOverHttpHosts: [String] = [], authority: String? = nil,
        wire: ServerProtocol = .openai
    ) async throws(KeptError) -> ServerReadings {
        let subject = try seal.subject(server)
        var readings = try await kept(server)
        let health: ServerHealth
        var models: ModelList?
        let readAt: KeptInstant
        let key = APIKey(apiKey)
        if case .refused(let host, let detail) = await CleartextRule.verdict(
            for: server.modelsURL, sendsKey: key != nil, allowedHosts: keyOverHttpHosts)
        {
            readAt = KeptInstant(now())
            health = ServerHealth(
                reachable: false, latencyMilliseconds: nil, status: nil, says: nil,
                problem: "not asked: keep does not send the key over plain http to \(host), "
                    + CleartextRule.notThisMachine(detail)
                    + " (use https, or allow that host in the keyOverHttpHosts setting)")
        } else {
            do {
                let answer = try await http.get(
                    server.modelsURL, apiKey: key, keyOverHttpHosts: keyOverHttpHosts, authority: authority, wire: wire)
                readAt = KeptInstant(now())
                if (200..<300).contains(answer.status) {
                    models = ModelList(modelsBody: answer.body, previous: readings.models?.value, readAt: readAt)?
                        .hidingKey(key)
                }
                health = Self.health(answer, server: server, modelsRead: models != nil, key: key)
            } catch {
                readAt = KeptInstant(now())
                health = ServerHealth(
                    reachable: false, latencyMilliseconds: nil, status: nil, says: nil, problem: error.reason)
            }
        }
        try await store.keepReading(try seal.record(HealthReading.self, health, about: subject, at: readAt))
        readings.health = KeptReading(value: health, readAt: readAt.date, isFresh: true)
        if let models {
            try await store.keepReading(try seal.record(ModelsReading.self, models, about: subject, at: readAt))
            readings.models = KeptReading(value: models, readAt: readAt.date, isFresh: true)
        }
        try await remember(server)
        return readings
    }

    /// `model` from `readings`' model list, for an action that acts on the server (making
    /// it the model chats ask for).
    ///
    /// Refused with a typed error when no model list was read, when the server does not
    /// list `model`, and — with the reading's age — when the list is kept rather than
    /// fresh: a kept reading is shown, but acting on it waits for a fresh one.
    package func modelToUse(_ model: String, from readings: ServerReadings) throws(KeptError) -> String {
        let action = "choose the model \(String(reflecting: model))"
        guard let list = readings.models else {
            throw .refused(action, "no model list has been read from \(readings.server)")
        }
        try list.requireFresh(for: action, now: now())
        guard list.value.ids.contains(model) else {
            throw .refused(action, "\(readings.server) does not list it")
        }
        return model
    }

    // MARK: - Servers

    /// The servers anything is kept about, in the user's order.
    ///
    /// Throws ``KeptError/Code/unreadable`` when the kept order cannot be read (it is left
    /// as it is).
    package func servers() async throws(KeptError) -> [ServerAddress] {
        guard let record = try await store.preference(ServerOrder.kind, about: nil) else { return [] }
        return try seal.open(ServerOrder.self, record)
    }

    // MARK: - Retention

    /// How long readings are kept: the user's choice, else 30 days.
    ///
    /// Throws ``KeptError/Code/unreadable`` when the kept choice cannot be read (it is
    /// left as it is; nothing is assumed in its place).
    package func retention() async throws(KeptError) -> Retention {
        guard let record = try await store.preference(RetentionPreference.kind, about: nil) else { return .standard }
        return try seal.open(RetentionPreference.self, record)
    }

    /// Keeps `retention` as the user's choice, then deletes the readings it makes too
    /// old; answers how many went.
    @discardableResult
    package func setRetention(_ retention: Retention) async throws(KeptError) -> Int {
        let record = try seal.record(RetentionPreference.self, retention, about: nil, at: KeptInstant(now()))
        try await store.keepPreference(record)
        return try await prune(retention)
    }

    // MARK: - Private

    /// The value of a reading, or `nil` after discarding one this build cannot read.
    private func openReading<S: KeptShape>(
        _ shape: S.Type, _ record: KeptRecord
    ) async throws(KeptError) -> KeptReading<S.Value>? where S.Value: Equatable {
        do throws(KeptError) {
            return KeptReading(value: try seal.open(shape, record), readAt: record.at.date, isFresh: false)
        } catch  where error.code == .unreadable {
            // Discarded rather than kept unread: the server can always be read again.
            try await store.discardReading(record)
            return nil
        }
    }

    /// The health reading for `answer`, the key hidden in what the server said.
    private static func health(
        _ answer: HTTPAnswer, server: ServerAddress, modelsRead: Bool, key: APIKey?
    ) -> ServerHealth {
        let sentKey = key != nil
        let problem: String?
        if case .refuse(let refusal)? = RedirectPolicy.decide(
            from: server.modelsURL, method: "GET", status: answer.status, location: answer.location)
        {
            problem =
                refusal.message(server: server.text, suffix: "/models", hidingKey: key)
                + (refusal.suggestedBase(suffix: "/models", hidingKey: key).map {
                    "; if that is the right server, point baseUrl at \($0)"
                } ?? "")
        } else {
            problem =
                switch answer.status {
                case 200..<300 where modelsRead: nil
                case 200..<300: "its answer to /models is not a model list"
                case 401, 403:
                    sentKey
                        ? "it refused the key (HTTP \(answer.status))"
                        : "it wants a key, and none is set (HTTP \(answer.status))"
                case 404: "it has no /models (HTTP 404); is the URL the API's base, such as …/v1?"
                default: "it answered HTTP \(answer.status)"
                }
        }
        let milliseconds =
            answer.latency.components.seconds * 1000 + answer.latency.components.attoseconds / 1_000_000_000_000_000
        return ServerHealth(
            reachable: true, latencyMilliseconds: milliseconds, status: answer.status,
            says: answer.server.map { String(ServerText.hidingKey($0, key).prefix(200)) }, problem: problem)
    }

    /// Deletes the readings `retention` makes too old; answers how many went.
    private func prune(_ retention: Retention) async throws(KeptError) -> Int {
        guard let cutoff = retention.cutoff(now: now()) else { return 0 }
        return try await store.pruneReadings(readBefore: cutoff)
    }

    /// Adds `server` at the end of the servers, unless it is there. A kept order that
    /// cannot be read is left as it is (the server is then not listed, but its rows are
    /// kept and forgettable by address).
    private func remember(_ server: ServerAddress) async throws(KeptError) {
        let order: [ServerAddress]
        do throws(KeptError) {
            order = try await servers()
        } catch  where error.code == .unreadable {
            return
        }
        guard !order.contains(server) else { return }
        try await store.keepPreference(
            try seal.record(ServerOrder.self, order + [server], about: nil, at: KeptInstant(now())))
    }

    /// Rewrites the whole module's preference of `shape` in the current shape version,
    /// when it is kept in an older one; answers whether it did. Its time is kept: the
    /// user chose it then, not now.
    private func upgradePreference<S: KeptShape>(_ shape: S.Type) async throws(KeptError) -> Bool {
        guard let record = try await store.preference(S.kind, about: nil), record.shapeVersion != S.version else {
            return false
        }
        let value = try seal.open(shape, record)
        try await store.keepPreference(try seal.record(shape, value, about: nil, at: record.at))
        return true
    }
}

// MARK: - Context windows

extension EnginesKeeper: ContextWindowSource {
    /// The context window of the model `query` names: the kept one while it is young
    /// (``ContextWindows/answeredAge``), else read now from the server's model list through
    /// the HTTP port (every rule of the edge holding: `edge`'s cleartext rule and
    /// User-Agent, the key from `readKey`, read only now, in the header of the server's
    /// protocol, `authority` when the server has one) and kept, whatever it said.
    ///
    /// `nil` when it cannot be told: the key could not be read, the address is not one, or
    /// the server did not answer (no answer, or an HTTP 401, 403, 429 or 5xx: a key fixed or
    /// a server back is asked again after ``ContextWindows/unansweredAge``); kept data that
    /// fails to keep is no error either.
    package func window(
        _ query: ContextWindowQuery, authority: String?, edge: EdgePolicy,
        readKey: @escaping @Sendable () async throws(EngineError) -> APIKey?
    ) async -> ContextWindow? {
        guard let server = try? ServerAddress(query.server), let subject = try? seal.subject(server) else { return nil }
        var windows = (try? await kept(server))?.windows?.value ?? ContextWindows()
        if let entry = windows.models[query.model], entry.isFresh(now: now()) {
            return entry.answered ? ContextWindow(tokens: entry.tokens, readAt: entry.readAt.date) : nil
        }
        let key: APIKey?
        do {
            key = try await readKey()
        } catch {
            return nil
        }
        var tokens: Int?
        var answered = false
        do {
            let answer = try await http.get(
                query.url, apiKey: key, keyOverHttpHosts: edge.keyOverHttpHosts, authority: authority, wire: query.wire)
            switch answer.status {
            case 200..<300:
                tokens = query.window(in: answer.body)
                answered = true
            case 401, 403, 429, 500...: break
            default: answered = true  // no such model or list (404), a redirect not followed: no window
            }
        } catch {
            // No answer: not asked again for a while, and no budget now.
        }
        let readAt = KeptInstant(now())
        let entry = ContextWindows.Entry(tokens: tokens, answered: answered, readAt: readAt)
        windows.set(entry, for: query.model)
        if let record = try? seal.record(ContextWindowsReading.self, windows, about: subject, at: readAt) {
            try? await store.keepReading(record)
            try? await remember(server)
        }
        return answered ? ContextWindow(tokens: tokens, readAt: readAt.date) : nil
    }

    /// The window kept for `model` at `server`, whatever its age, without asking; `nil` when
    /// the server never answered about it.
    package func keptWindow(of model: String, at server: ServerAddress) async -> ContextWindow? {
        guard let entry = (try? await kept(server))?.windows?.value.models[model], entry.answered else { return nil }
        return ContextWindow(tokens: entry.tokens, readAt: entry.readAt.date)
    }
}

// MARK: - What is new

extension EnginesKeeper: SaysWhatIsNew {
    package var owner: KeptOwner { Self.owner }

    /// For each server, the models first seen after the newest one the user has seen;
    /// every listed model when the user never looked, or looked before the kept list's
    /// memory begins.
    package func whatIsNew() async throws(KeptError) -> [WhatIsNew] {
        var news: [WhatIsNew] = []
        for server in try await servers() {
            guard let reading = try await kept(server).models, let newest = reading.value.newest else { continue }
            let seen = try await seenMark(server)
            let firstLook = seen.map { $0.position < reading.value.since.millisecondsSince1970 } ?? true
            let items = reading.value.models.filter { model in
                firstLook || model.firstSeen.millisecondsSince1970 > (seen?.position ?? .min)
            }
            guard !items.isEmpty else { continue }
            news.append(
                WhatIsNew(
                    owner: Self.owner, about: server.text, kind: ModelsReading.kind, items: items.map(\.id),
                    readAt: reading.readAt, isFirstLook: firstLook,
                    newest: WhatIsNew.Mark(item: newest.id, position: newest.firstSeen.millisecondsSince1970)))
        }
        return news
    }

    /// Moves each server's marker up to the newest model in the news about it.
    package func looked(at news: [WhatIsNew]) async throws(KeptError) {
        for item in news where item.owner == Self.owner && item.kind == ModelsReading.kind {
            let server = try ServerAddress(item.about)
            if let seen = try await seenMark(server), seen.position >= item.newest.position { continue }
            try await store.keepMarker(
                try seal.record(ModelMarker.self, item.newest, about: try seal.subject(server), at: KeptInstant(now())))
        }
    }

    /// The newest model the user has seen on `server`; a marker this build cannot read
    /// counts as none (the next look replaces it).
    private func seenMark(_ server: ServerAddress) async throws(KeptError) -> WhatIsNew.Mark? {
        guard let record = try await store.marker(ModelMarker.kind, about: try seal.subject(server)) else { return nil }
        do throws(KeptError) {
            return try seal.open(ModelMarker.self, record)
        } catch  where error.code == .unreadable {
            return nil
        }
    }
}

// MARK: - Forgetting a server

extension EnginesKeeper: ForgetsServers {
    /// Deletes every reading, marker and preference about `server` and removes it from the
    /// servers; answers how many rows went.
    ///
    /// The rows go first. If the kept order cannot be read it cannot be rewritten either:
    /// that is a typed ``KeptError/Code/unreadable`` error after the rows are gone.
    package func forget(_ server: ServerAddress) async throws(KeptError) -> Int {
        let deleted = try await store.forget(about: try seal.subject(server))
        let order = try await servers()
        if order.contains(server) {
            try await store.keepPreference(
                try seal.record(
                    ServerOrder.self, order.filter { $0 != server }, about: nil, at: KeptInstant(now())))
        }
        return deleted
    }
}
