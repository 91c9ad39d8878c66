import Foundation
import KeepPorts
import KeepSealed
import KeepTestSupport

@testable import KeepKeptData

/// An engines keeper on a store of a test's choosing, a real sealer under a random key, a
/// scripted server and a hand-moved clock; ``reopened()`` is the same kept data seen by
/// a later launch.
struct EnginesFixture {
    let store: any EnginesStorePort
    let sealer: AESGCMSealer
    let server: ScriptedServer
    let clock: TestClock
    let keeper: EnginesKeeper

    init(
        store: any EnginesStorePort = EnginesMemoryStore(),
        server: ScriptedServer = ScriptedServer(.models(["a", "b"])),
        clock: TestClock = TestClock(), sealer: AESGCMSealer? = nil
    ) throws {
        self.store = store
        self.sealer = try sealer ?? AESGCMSealer(dataKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        self.server = server
        self.clock = clock
        self.keeper = EnginesKeeper(store: store, sealer: self.sealer, http: server, now: clock.reading)
    }

    /// The same kept data and key, as a later launch sees it.
    func reopened() throws -> EnginesFixture {
        try EnginesFixture(store: store, server: server, clock: clock, sealer: sealer)
    }

    /// A record of `shape`'s kind sealed as shape version `version` holding `payload`, as
    /// another build would have written it.
    func record<S: KeptShape>(
        _ shape: S.Type, version: Int, payload: String, about server: ServerAddress?, at: Date? = nil
    ) throws -> KeptRecord {
        let subject = try server.map { try sealer.subjectHash($0.text) }
        let time = KeptInstant(at ?? clock.now)
        let binding = SealBinding(
            owner: EnginesKeeper.owner, kind: S.kind, shapeVersion: version, subject: subject,
            millisecondsSince1970: time.millisecondsSince1970)
        return KeptRecord(
            kind: S.kind, subject: subject, shapeVersion: version, at: time,
            sealed: try sealer.seal(Array(payload.utf8), for: binding))
    }
}
