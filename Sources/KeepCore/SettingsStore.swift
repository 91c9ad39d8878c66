import Foundation
import KeepPorts
import Synchronization

/// The app's settings: one hand-editable JSON object at `settings`/`settings`, read with
/// suspicion, written only when the user changes something, and never holding a secret.
///
/// What it promises:
///
/// - ``load()`` treats every field of the file as untrusted. A field whose value is not a
///   string, number or flag, or that its setting's rule refuses, is not used: the default
///   stands and ``isSet(_:)`` is false. Such a field, and any key the app does not know,
///   stays in the file as written when the store next writes it. A secret-flagged key
///   found on disk is ignored and dropped from the file at the next write.
/// - A file that is not a JSON object, or that is that one file's problem (a symbolic link,
///   never followed or written through; a file keep may not read), is never written over
///   with defaults: ``health`` reports it, the defaults are used in memory only, and the
///   file is left as it is until the user changes a setting; then a file of text is first
///   moved aside, copied to a `settings.corrupt-<time>` id in the `settings` namespace with
///   the value of every secret-flagged field removed (``health`` says so, and where), and
///   only then replaced (one that could not be read as text is not replaced: ``health`` is
///   ``SettingsHealth/refused(reason:)`` and ``set(_:_:)`` refuses). `load` itself never
///   writes.
/// - ``isSet(_:)`` is true for a value loaded from the file or changed in this run, and
///   false for an empty text, for a refused field and after a refused change: only a
///   deliberate choice outranks a caller's default (``chosenStringOr(_:_:)``).
/// - ``set(_:_:)`` checks the value, writes the whole file, and only then changes what the
///   store answers; when the write fails nothing changes and the error is rethrown.
///   Changes run one at a time, so no write loses another's change.
/// - ``set(_:_:)`` refuses a secret-flagged setting. ``setSecret(_:_:)`` and
///   ``clearSecret(_:)`` are the only routes to its value, straight to the ``/KeepPorts/SecretsPort``;
///   every write of the file strips secret-flagged keys (`plainOnly(_:defs:)`). There is
///   no getter for a secret here; see ``readSecretSetting(secrets:defs:key:)``.
/// - Every change, secret or not, notifies the subscribers, over a snapshot of them taken
///   before the first is called.
public final class SettingsStore: Sendable {
    /// Where the settings live.
    public static let key = StorageKey(.settings, "settings")

    /// Every setting this store knows, in the order a screen shows them.
    public let defs: [SettingDef]
    private let defsByKey: [String: SettingDef]
    private let storage: any StoragePort
    private let secrets: any SecretsPort
    private let now: @Sendable () -> Date
    private let contents = Mutex(Contents())
    private let subscribers = Mutex(Subscribers())
    private let changes = TurnLock()

    /// A store over `storage` and `secrets` for `defs`; call ``load()`` before use. `now` is
    /// the clock that names a kept-aside file.
    public init(
        storage: any StoragePort, secrets: any SecretsPort, defs: [SettingDef],
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.defs = defs
        self.defsByKey = Dictionary(defs.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        self.storage = storage
        self.secrets = secrets
        self.now = now
    }

    // MARK: - Reading

    /// How the settings file was found by the last ``load()``, or what became of it.
    public var health: SettingsHealth { contents.withLock { $0.health } }

    /// The fields the last ``load()`` did not accept, sorted by key.
    public var refusals: [SettingRefusal] { contents.withLock { $0.refusals } }

    /// The value loaded or set for `key`, which may be an empty text; `nil` when there is none.
    public func get(_ key: String) -> SettingValue? {
        contents.withLock { $0.values[key] }
    }

    /// Whether `key` holds a deliberate choice: a value loaded or set, other than an empty
    /// text. Never true for a refused value or a secret.
    public func isSet(_ key: String) -> Bool {
        guard let value = get(key) else { return false }
        return value != .string("")
    }

    /// The value the app uses for `key`: the chosen one when ``isSet(_:)``, else the
    /// default; `nil` for a key no setting has and for a secret (it has no value row).
    public func value(_ key: String) -> SettingValue? {
        guard let def = defsByKey[key], !def.isSecret else { return nil }
        return isSet(key) ? get(key) : def.defaultValue
    }

    /// The chosen text for `key` when ``isSet(_:)``, else `fallback`: how a caller's own
    /// argument (the composition root's engine) gives way only to a deliberate choice.
    public func chosenStringOr(_ key: String, _ fallback: String) -> String {
        guard isSet(key), let text = get(key)?.string else { return fallback }
        return text
    }

    // MARK: - Loading

    /// Reads the settings file, replacing what the store held.
    ///
    /// Throws ``SettingsError/storage(_:)`` only when the store cannot be reached (the app
    /// cannot boot without it); a file it cannot make sense of is reported through
    /// ``health`` and ``refusals`` instead. Never writes.
    public func load() async throws(SettingsError) {
        try await changes.run { () async throws(SettingsError) in
            let text: String?
            do throws(StorageError) {
                text = try await storage.read(Self.key)
            } catch {
                guard error.isOneFilesProblem else { throw .storage(error) }
                // Bytes that are not text, a symbolic link (never followed, so never written
                // through), a file keep may not read: none can be kept aside through a port of
                // strings, so the file stays where it is and ``set`` refuses to replace it.
                contents.withLock { $0 = Contents(health: .refused(reason: error.description)) }
                return
            }
            let loaded = text.map(read) ?? Contents()
            contents.withLock { $0 = loaded }
        }
    }

    /// The contents a file holding `text` gives: every field checked on its own.
    private func read(_ text: String) -> Contents {
        if text.allSatisfy(\.isWhitespace) { return Contents() }
        let fields: [String: JSONValue]
        do {
            fields = try JSONValue.object(parsing: text)
        } catch {
            return Contents(health: .unreadable(reason: error.reason), unreadableText: text)
        }
        var loaded = Contents()
        for (key, field) in fields {
            guard let def = defsByKey[key] else {
                loaded.kept[key] = field
                continue
            }
            if def.isSecret {
                loaded.refusals.append(
                    SettingRefusal(
                        key: key,
                        reason: "a secret does not belong in the settings file; ignored, and removed from the file "
                            + "the next time settings are saved (consider replacing that key)"))
                continue
            }
            guard let scalar = field.scalar else {
                loaded.refusals.append(
                    SettingRefusal(key: key, reason: "\(key) must be \(def.rule), not a list or object"))
                loaded.kept[key] = field
                continue
            }
            do {
                loaded.values[key] = try def.accept(scalar)
            } catch {
                loaded.refusals.append(SettingRefusal(key: key, reason: error.description))
                loaded.kept[key] = field
            }
        }
        loaded.refusals.sort { $0.key < $1.key }
        return loaded
    }

    // MARK: - Changing

    /// Sets `key` to `value` (coerced and checked by its setting), writes the file, then
    /// notifies.
    ///
    /// Throws ``SettingsError/unknownKey(_:)``, ``SettingsError/secretKey(_:)`` or
    /// ``SettingsError/refused(key:reason:)`` before anything is written, and
    /// ``SettingsError/storage(_:)`` when the write fails; after any throw the store
    /// answers exactly what it answered before. An empty text is stored but is not a choice.
    public func set(_ key: String, _ value: SettingValue) async throws(SettingsError) {
        guard let def = defsByKey[key] else { throw .unknownKey(key) }
        let accepted = try def.accept(value)
        try await change(key) { contents in
            contents.values[key] = accepted
            contents.kept[key] = nil
        }
    }

    /// Removes `key`'s value from the file, so the default applies again; also removes a
    /// key the app does not know but the file holds. Throws as ``set(_:_:)`` does.
    public func unset(_ key: String) async throws(SettingsError) {
        if let def = defsByKey[key] {
            if def.isSecret { throw .secretKey(key) }
        } else if contents.withLock({ $0.kept[key] == nil }) {
            throw .unknownKey(key)
        }
        try await change(key) { contents in
            contents.values[key] = nil
            contents.kept[key] = nil
        }
    }

    /// Applies `edit` to a copy of the contents, writes that copy (without any secret-flagged
    /// field, whatever `edit` put there), then commits it and notifies; one change at a time.
    /// Internal, not private, so a test can hand it an edit no public route makes.
    func change(_ key: String, _ edit: @Sendable (inout Contents) -> Void) async throws(SettingsError) {
        try await changes.run { () async throws(SettingsError) in
            var next = contents.withLock { $0 }
            edit(&next)
            if case .refused(let reason) = next.health {
                throw .unreadableFile(path: Self.key.description, reason: reason)
            }
            if case .unreadable(let reason) = next.health {
                // The user's first change replaces an unreadable file: keep it aside first.
                guard let original = next.unreadableText else {
                    throw .unreadableFile(path: Self.key.description, reason: reason)
                }
                let id = try await keepAside(original)
                next.health = .keptAside(id: id, reason: reason)
                next.unreadableText = nil
                // The copy is on disk whatever happens next; a retry must not copy again.
                contents.withLock {
                    $0.health = next.health
                    $0.unreadableText = nil
                }
            }
            let text: String
            do {
                text = try JSONValue.text(of: Self.plainOnly(next.fields, defs: defsByKey))
            } catch {
                throw .storage(
                    StorageError(
                        code: .io, operation: "encode", path: Self.key.description,
                        reason: "it could not be encoded as JSON"))
            }
            do throws(StorageError) {
                try await storage.write(Self.key, text)
            } catch {
                throw .storage(error)
            }
            let committed = next
            contents.withLock { $0 = committed }
        }
        notify(key)
    }

    /// How the id of a moved-aside settings file starts; the time follows.
    public static let asideIdPrefix = "settings.corrupt-"

    /// Stores `original`, every secret-flagged field's value removed (``SecretFields``),
    /// under a fresh `settings.corrupt-<time>` id, never over another value, and returns
    /// that id: a secret the file held never reaches the plain store through the port.
    private func keepAside(_ original: String) async throws(SettingsError) -> String {
        let secretKeys = Set(defs.filter(\.isSecret).map(\.key))
        let copy = SecretFields.removing(secretKeys, from: original)
        let stamp = now().formatted(
            Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted)
        ).lowercased()
        do {
            for attempt in 1...100 {
                let id = Self.asideIdPrefix + stamp + (attempt == 1 ? "" : "-\(attempt)")
                let key = StorageKey(.settings, id)
                guard try await storage.read(key) == nil else { continue }
                try await storage.write(key, copy)
                return id
            }
        } catch {
            throw .storage(error)
        }
        throw .storage(
            StorageError(
                code: .io, operation: "keep aside", path: Self.key.description,
                reason: "no free settings.corrupt-\(stamp) id after 100 attempts"))
    }

    /// `fields` without any secret-flagged key: the last guard before the file is written.
    static func plainOnly(_ fields: [String: JSONValue], defs: [String: SettingDef]) -> [String: JSONValue] {
        fields.filter { key, _ in defs[key]?.isSecret != true }
    }

    // MARK: - Secrets

    /// Stores `value` in the keychain slot of the secret-flagged setting `key`, then
    /// notifies. Never touches the settings file.
    public func setSecret(_ key: String, _ value: String) async throws(SettingsError) {
        let ref = try secretRef(key)
        do {
            try await secrets.set(ref, value)
        } catch {
            throw .secrets(error)
        }
        notify(key)
    }

    /// Deletes the keychain value of the secret-flagged setting `key`, then notifies, just
    /// as storing one does, so a screen showing "configured" repaints.
    public func clearSecret(_ key: String) async throws(SettingsError) {
        let ref = try secretRef(key)
        do {
            try await secrets.delete(ref)
        } catch {
            throw .secrets(error)
        }
        notify(key)
    }

    /// How the keychain behind the secret settings protects them, for the screen to say.
    public var secretProtection: SecretProtection { secrets.protection }

    /// Whether the secret-flagged setting `key` has a value in the keychain; never loads it.
    public func hasSecret(_ key: String) async throws(SettingsError) -> Bool {
        let ref = try secretRef(key)
        do {
            return try await secrets.has(ref)
        } catch {
            throw .secrets(error)
        }
    }

    private func secretRef(_ key: String) throws(SettingsError) -> SecretRef {
        guard let def = defsByKey[key] else { throw .unknownKey(key) }
        guard let ref = def.secretRef else { throw .notSecret(key) }
        return ref
    }

    // MARK: - Subscribers

    /// Calls `listener` with the key of every later change; keep the answer to unsubscribe.
    public func subscribe(_ listener: @escaping @Sendable (String) -> Void) -> Subscription {
        subscribers.withLock { subscribers in
            let subscription = Subscription(number: subscribers.next)
            subscribers.next += 1
            subscribers.listeners.append((subscription, listener))
            return subscription
        }
    }

    /// Stops calls to the listener `subscription` names; unknown subscriptions are ignored.
    public func unsubscribe(_ subscription: Subscription) {
        subscribers.withLock { $0.listeners.removeAll { $0.0 == subscription } }
    }

    /// Calls every listener subscribed when the notification starts, even one another
    /// listener unsubscribes on the way, and outside the lock, so a listener may
    /// subscribe, unsubscribe or read.
    private func notify(_ key: String) {
        let snapshot = subscribers.withLock { $0.listeners.map(\.1) }
        for listener in snapshot {
            listener(key)
        }
    }

    /// A handle for one listener.
    public struct Subscription: Hashable, Sendable {
        fileprivate let number: Int
    }
}

// MARK: - State

extension SettingsStore {
    /// What the store holds between changes.
    struct Contents: Sendable {
        var health = SettingsHealth.fine
        /// The text of an unreadable file, to keep aside before the first write.
        var unreadableText: String?
        /// Accepted values, from the file or set in this run.
        var values: [String: SettingValue] = [:]
        /// Fields of the file written back as they were: unknown keys and refused values.
        var kept: [String: JSONValue] = [:]
        var refusals: [SettingRefusal] = []

        /// Everything the file holds: the kept fields under the accepted values.
        var fields: [String: JSONValue] {
            kept.merging(values.mapValues(JSONValue.init)) { _, value in value }
        }
    }

    fileprivate struct Subscribers: Sendable {
        var next = 0
        var listeners: [(Subscription, @Sendable (String) -> Void)] = []
    }
}
