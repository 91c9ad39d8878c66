import KeepCore
import KeepEngines
import KeepPorts

/// Every engine `keep` can answer with: the one table a new engine is added to. The
/// `engineId` setting's allowed values, default and help, ``Platform/engineFor(_:settings:secrets:keyringUnavailable:server:)``
/// and the engine check of `keep doctor` all come from it.
package enum EngineCatalog {
    /// The offline engine, and the one a fresh install starts on.
    package static let echo = EngineKind(id: EchoEngine.engineId, summary: "offline, repeats you", needs: []) { _ in
        EchoEngine()
    }

    /// A server (OpenAI-compatible, Anthropic or Gemini), whose key is read per request.
    package static let remote = EngineKind(
        id: RemoteEngine.engineId, summary: "a server: keep servers lists them", needs: [.server, .key],
        make: makeRemote)

    /// Every engine, in the order the settings list them.
    package static let all = [echo, remote]

    /// The engine a fresh install starts on.
    package static let defaultKind = echo

    /// The engine called `id`, or `nil` when none is.
    package static func kind(_ id: String) -> EngineKind? {
        all.first { $0.id == id }
    }

    /// The engines for the `engineId` setting's help: `echo (offline, repeats you) or remote (…)`.
    static var described: String {
        let each = all.map { "\($0.id) (\($0.summary))" }
        guard each.count > 1 else { return each.joined() }
        return each.dropLast().joined(separator: ", ") + " or " + (each.last ?? "")
    }

    /// What every request obeys and carries: the hosts `keyOverHttpHosts` allows a key over
    /// plain http, and `User-Agent: keep/<version>` (``KeepVersion``).
    package static func edge(_ settings: SettingsStore) -> EdgePolicy {
        EdgePolicy(
            keyOverHttpHosts: SettingRegistry.keyOverHttpHostsIn(settings),
            userAgent: KeepVersion.userAgent)
    }

    /// ``RemoteEngine`` for the setup's server: the key read per request from the ref the
    /// server names, the temperature and the edge's limits from the settings, and why no
    /// keyring answers (when none does) as its advice for a server that wants a key
    /// (``RemoteEngine/keyUnreadable``).
    private static func makeRemote(_ setup: EngineKind.Setup) throws(EngineError) -> any ChatEngine {
        let settings = setup.settings
        let secrets = setup.secrets
        let server = setup.server
        let ref = server.key
        // Checked against its setting's rule when it was loaded or set; one of the wrong kind
        // all the same is reported, never replaced.
        guard let temperature = settings.value(SettingRegistry.temperature.key)?.number else {
            throw EngineError(.configuration, "temperature must be \(SettingRegistry.temperature.rule)")
        }
        var engine = RemoteEngine(
            server: server, temperature: temperature, answerTimeout: SettingRegistry.answerTimeoutIn(settings),
            edge: edge(settings),
            answerLimit: SettingRegistry.answerLimitIn(settings)
        ) { () async throws(EngineError) in
            do throws(SettingsError) {
                // Bytes from here on; the port's string goes at once.
                return APIKey(try await readSecret(secrets: secrets, ref: ref))
            } catch {
                guard let reason = error.secrets else {
                    throw EngineError(.key, "cannot read the API key in \(ref): \(error)")
                }
                throw EngineError(.key, "cannot read the API key: \(reason)")
            }
        }
        engine.keyUnreadable = setup.keyringUnavailable.map { "\($0)" }
        engine.windows = setup.windows
        return engine
    }
}
