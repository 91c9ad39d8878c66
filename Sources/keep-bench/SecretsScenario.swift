import Foundation
import KeepPorts
import KeepSecretService

/// `has`, `get` and `set` of one API key on the Secret Service, through
/// ``KeepSecretService/SecretServiceSecrets``, on the private session `scripts/with-keyring`
/// gives it, and skipped (saying why) on any other.
///
/// There is no raw baseline here: each call is a D-Bus round trip to the keyring daemon,
/// and the ratios are against `has`, the cheapest (a search that loads no secret). The
/// items are made under the application name `keep-bench`, never `keep`, and deleted at
/// the end. When no Secret Service answers, the scenario is skipped and says why.
struct SecretsScenario: Scenario {
    let id = ScenarioID.secrets

    static let has = "has"
    static let get = "get"
    static let set = "set"

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        // Only on the private bus scripts/with-keyring starts (it says so with this variable):
        // a desktop session's keyring is never written by a benchmark.
        let environment = ProcessInfo.processInfo.environment
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], environment["KEEP_PRIVATE_SESSION_BUS"] == bus else {
            return .skipped(
                "refusing to touch this session's keyring; run it as scripts/with-keyring swift run -c release keep-bench"
            )
        }
        let secrets = try SecretServiceSecrets(application: "keep-bench")
        do {
            try await secrets.checkAvailable()
        } catch {
            return .skipped(
                "no Secret Service answers (\(error)); run it as scripts/with-keyring swift run -c release keep-bench")
        }
        let ref = SecretRef(.custom, account: "bench-\(UInt32.random(in: .min ... .max))")
        let value = "sk-bench-" + Payload.text(48)
        try await secrets.set(ref, value)
        let calls = scale.secretCallsPerSample
        return .ready(
            [
                Comparison(
                    title: "Secret Service, one call", metric: .latency, operation: "call", baseline: Self.has,
                    contenders: [
                        Contender(Self.has, note: "loads no secret", operationsPerSample: calls) {
                            for _ in 0..<calls { _ = try await secrets.has(ref) }
                        },
                        Contender(Self.get, operationsPerSample: calls) {
                            for _ in 0..<calls { _ = try await secrets.get(ref) }
                        },
                        Contender(Self.set, note: "replaces the item", operationsPerSample: calls) {
                            for _ in 0..<calls { try await secrets.set(ref, value) }
                        },
                    ])
            ],
            finish: { try? await secrets.delete(ref) })
    }
}
