import Foundation
import KeepApp
import KeepCore
import KeepEngines
import KeepPorts

/// The checks of `keep doctor` about keys: the keychain (a note, not a problem, when
/// nothing this setup does needs a key), the key the remote engine sends (stored, none,
/// or cannot tell), and API keys left in plain text in files keep reads or kept aside.
package enum KeyringChecks {
    /// The keychain: fine, or why it cannot be used now. Without a keyring (or with one
    /// that refuses), that is a problem only when `needsKey`: the echo engine and a
    /// server on this machine need none.
    static func secrets(_ backend: SecretsBackend, needsKey: Bool) -> DoctorReport.Check {
        let trouble = backend.keyringRefusal ?? backend.keyringUnavailable
        guard let trouble else {
            let said = backend.protectionNote ?? backend.warning
            return .init("secrets", .ok, "\(backend.name)" + (said.map { ": " + $0 } ?? ""))
        }
        let detail = backend.warning ?? "\(backend.name): \(trouble)"
        guard needsKey else {
            return .init("secrets", .note, detail + "; nothing set up now needs a key")
        }
        return .init("secrets", .problem, detail, advice: KeyPresence.advice(trouble.code))
    }

    /// Whether the setup in `core` sends a key to anyone: an engine that needs one
    /// (``EngineKind/Needs/key``) on a server that is not this machine, by the one rule
    /// the cleartext rule uses (``ThisMachine``: every address the host resolves to is
    /// loopback), never by how the host is spelled.
    package static func needsKey(_ core: AppCore) async -> Bool {
        guard EngineCatalog.kind(core.engineId)?.needs.contains(.key) == true else { return false }
        return await needsKey(url: core.settings.value(SettingRegistry.baseUrl.key)?.description ?? "")
    }

    /// Whether a key would go to the server at `url`: its host is not this machine, by the
    /// one rule (``ThisMachine``), never by how it is spelled.
    package static func needsKey(url: String) async -> Bool {
        guard let origin = URL(string: url).flatMap(ServerOrigin.init) else { return true }
        return !(await ThisMachine.resolve(origin.host).isThisMachine)
    }

    /// The key the remote engine sends, described from `presence`: for `server`, in `ref`.
    static func engineKey(
        _ presence: KeyPresence, ref: SecretRef, server: String, needsKey: Bool
    ) -> DoctorReport.Check {
        switch presence {
        case .stored:
            return .init("engine", .ok, server + "; the key in \(ref) is sent")
        case .none:
            return .init(
                "engine", .ok,
                server + "; no key in \(ref), so none is sent (fine for a local server; a hosted one needs "
                    + CommandAdvice.keySet(ref) + ")")
        case .unknown(let error):
            let detail = server + "; whether a key is in \(ref) cannot be told: \(KeyPresence.trouble(error.code))"
            guard needsKey else { return .init("engine", .note, detail + " (a server on this machine may need none)") }
            return .init("engine", .problem, detail + " (\(error))", advice: KeyPresence.advice(error.code))
        }
    }

    /// API keys in plain text where an older build or a kept-aside settings file left
    /// them: `<root>/store.json`, and every file in `store/settings` (the settings file
    /// itself, where a migration may have copied one, and those kept aside). One problem
    /// naming the files, never a value.
    static func plaintextKeys(_ root: String) -> DoctorReport.Check? {
        var files: [String] = []
        let legacy = (root as NSString).appendingPathComponent("store.json")
        if holdsPlaintextKey(legacy) { files.append(legacy) }
        let settings = (root as NSString).appendingPathComponent("store/\(Namespace.settings.rawValue)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: settings)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (settings as NSString).appendingPathComponent(name)
            if holdsPlaintextKey(path) { files.append(path) }
        }
        guard !files.isEmpty else { return nil }
        return .init(
            "plaintext keys", .problem,
            "an API key is stored in plain text in " + files.joined(separator: ", "),
            advice: "move it into the keyring with `keep key set SLOT` (typed at the hidden prompt), then remove "
                + "that copy from the file")
    }

    /// The names under which a key may sit in a settings document: each secret setting's.
    static var keyFieldNames: Set<String> {
        Set(SettingRegistry.defs.filter(\.isSecret).map(\.key))
    }

    /// Whether the JSON file at `path` holds, at any depth (a string member that is itself
    /// JSON counts: the legacy store keeps each value as text), a non-empty string under
    /// one of ``keyFieldNames``. A file that is missing or not JSON holds none.
    static func holdsPlaintextKey(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return holdsKey(data, depth: 0)
    }

    private static func holdsKey(_ data: Data, depth: Int) -> Bool {
        guard depth < 4, let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return false }
        return holdsKey(value, depth: depth)
    }

    private static func holdsKey(_ value: Any, depth: Int) -> Bool {
        switch value {
        case let object as [String: Any]:
            for (name, member) in object {
                if keyFieldNames.contains(name), let text = member as? String, !KeyText.trimmed(text).isEmpty {
                    return true
                }
                if holdsKey(member, depth: depth) { return true }
            }
            return false
        case let array as [Any]:
            return array.contains { holdsKey($0, depth: depth) }
        case let text as String:
            guard text.hasPrefix("{") || text.hasPrefix("[") else { return false }
            return holdsKey(Data(text.utf8), depth: depth + 1)
        default:
            return false
        }
    }
}
