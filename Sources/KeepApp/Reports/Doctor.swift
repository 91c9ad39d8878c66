import Foundation
import KeepCore
import KeepFileStore
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The checks of `keep doctor`: the data root and whether it is writable, files left in
/// the store that are not values, the store and the settings file, the migration from
/// `store.json`, unreadable chats, waiting drafts, the keychain, kept data and the engine.
///
/// It looks before it opens the store (opening it removes the temp files of writers that
/// died, and those are worth reporting), changes nothing of the user's data, and never
/// contacts a server. (Kept data, once there is some, is opened as at any launch: readings
/// past their retention go, and after a key loss the notice is told, here as anywhere;
/// before there is any, no key is made for it.)
public enum Doctor {
    /// Runs every check on what `composition` gives.
    public static func examine(_ composition: Composition) async -> DoctorReport {
        var checks: [DoctorReport.Check] = []
        let root: String
        do {
            root = try composition.dataRoot()
        } catch {
            checks.append(
                .init(
                    "data root", .problem, error.description,
                    advice: "set XDG_DATA_HOME or HOME to an absolute path"))
            checks.append(await secretsCheck(composition))
            return DoctorReport(dataRoot: nil, checks: checks)
        }
        checks.append(writable(root))
        checks.append(contentsOf: leftovers(root))
        let core: AppCore
        switch await composition.boot() {
        case .failed(let reason, let detail):
            checks.append(
                .init(
                    "store", .problem, "\(reason.rawValue): \(detail)",
                    advice: "check that \(root) and everything in it is readable and writable by you"))
            checks.append(await secretsCheck(composition))
            return DoctorReport(dataRoot: root, checks: checks)
        case .ready(let ready):
            core = ready
        }
        if let storage = try? await composition.storage() {
            checks.append(await migration(root, storage))
        }
        checks.append(settingsCheck(core.settings))
        checks.append(contentsOf: await chatsChecks(core.chats))
        checks.append(await secretsCheck(composition))
        checks.append(await keptCheck(composition, root))
        checks.append(await engineCheck(core, composition))
        return DoctorReport(dataRoot: root, checks: checks)
    }

    // MARK: - The data root

    /// Whether a file can be made in `root` (or, before the first write, in the nearest
    /// directory above it that exists, where `root` will be made).
    static func writable(_ root: String) -> DoctorReport.Check {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            var parent = (root as NSString).deletingLastPathComponent
            while !FileManager.default.fileExists(atPath: parent), parent != "/" {
                parent = (parent as NSString).deletingLastPathComponent
            }
            guard access(parent, W_OK) == 0 else {
                return .init(
                    "data root", .problem,
                    "\(root) does not exist yet, and \(parent) is not writable: "
                        + StorageError.system("access", path: parent, errno: errno).description,
                    advice: "make \(root) yourself, or set XDG_DATA_HOME to a directory you can write")
            }
            return .init("data root", .ok, "\(root) does not exist yet; it is made at the first write")
        }
        guard isDirectory.boolValue else {
            return .init(
                "data root", .problem, "\(root) is not a directory", advice: "move that file away, then run keep again")
        }
        // A real write, not a permission bit: a read-only mount or a full disk shows here.
        let probe = (root as NSString).appendingPathComponent(".keep-doctor-\(UInt32.random(in: 0...UInt32.max))")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            return .init(
                "data root", .problem,
                "\(root) is not writable: \(StorageError.system("open", path: probe, errno: errno))",
                advice: "make \(root) writable by you (chmod u+rwx), or free some space")
        }
        close(descriptor)
        unlink(probe)
        return .init("data root", .ok, "\(root) exists and is writable")
    }

    /// Files in the store's namespace directories that are not values: temp files of
    /// interrupted writes (a name starting with `.`, which no id encodes to) and files keep
    /// did not write (a name no id encodes to). Both are never listed or read as values.
    static func leftovers(_ root: String) -> [DoctorReport.Check] {
        var temps: [String] = []
        var foreign: [String] = []
        for namespace in Namespace.allCases {
            let directory = "store/\(namespace.rawValue)"
            let names =
                (try? FileManager.default.contentsOfDirectory(
                    atPath: (root as NSString).appendingPathComponent(directory))) ?? []
            for name in names.sorted() {
                if name.hasPrefix(".") {
                    temps.append("\(directory)/\(name)")
                } else if IdEncoding.id(fromFileName: name) == nil {
                    foreign.append("\(directory)/\(name)")
                }
            }
        }
        var checks: [DoctorReport.Check] = [
            temps.isEmpty
                ? .init("temp files", .ok, "none left by interrupted writes")
                : .init(
                    "temp files", .note,
                    "\(temps.count) left by interrupted writes (\(list(temps))); never read as values, "
                        + "and removed when keep opens the store unless a write is still running")
        ]
        if !foreign.isEmpty {
            checks.append(
                .init(
                    "other files", .note,
                    "\(Plural.of(foreign.count, "file")) in the store that keep did not write (\(list(foreign))); "
                        + "they are never read and left alone"))
        }
        return checks
    }

    // MARK: - The store's contents

    static func migration(_ root: String, _ storage: any StoragePort) async -> DoctorReport.Check {
        let legacy = (root as NSString).appendingPathComponent("store.json")
        guard FileManager.default.fileExists(atPath: legacy) else {
            return .init("migration", .ok, "no store.json from an older build")
        }
        let marker = try? await storage.read(StorageKey(.cache, "migrated-from-store-json"))
        guard let marker else {
            return .init(
                "migration", .problem, "store.json has not been fully copied into the file store yet",
                advice: "keep retries at every launch; the warning it prints says which value failed")
        }
        return .init(
            "migration", .ok, "store.json was copied into the file store (\(marker)); it is kept, unchanged")
    }

    static func settingsCheck(_ settings: SettingsStore) -> DoctorReport.Check {
        switch settings.health {
        case .unreadable:
            return .init(
                "settings file", .problem, settings.health.description,
                advice: "fix store/settings/settings by hand, or change any setting to keep it aside and start afresh")
        case .keptAside:
            return .init("settings file", .note, settings.health.description)
        case .fine:
            guard settings.refusals.isEmpty else {
                return .init(
                    "settings file", .problem,
                    (settings.refusals.count == 1 ? "1 field is" : "\(settings.refusals.count) fields are")
                        + " not used: " + settings.refusals.map(\.description).joined(separator: "; "),
                    advice: "fix them in store/settings/settings, or set them with `keep settings set`")
            }
            return .init("settings file", .ok, "fine")
        }
    }

    static func chatsChecks(_ chats: ChatRepository) async -> [DoctorReport.Check] {
        let listing: ChatListing
        do {
            listing = try await chats.scan()
        } catch {
            return [.init("chats", .problem, "the chats cannot be listed: \(error)")]
        }
        var checks: [DoctorReport.Check] = []
        if listing.unreadable.isEmpty {
            let summary =
                switch listing.chats.count {
                case 0: "no chats yet"
                case 1: "1 chat, readable"
                case let count: "\(count) chats, all readable"
                }
            checks.append(.init("chats", .ok, summary))
        } else {
            checks.append(
                .init(
                    "chats", .problem,
                    "\(listing.unreadable.count) of \(Plural.of(listing.chats.count + listing.unreadable.count, "chat")) cannot be "
                        + "read: " + list(listing.unreadable.map(\.description), separator: "; "),
                    advice: "they are left as they are; fix the files under store/chats, or remove them with "
                        + "`keep chats rm ID`"))
        }
        if let drafts = try? await chats.draftIds(), !drafts.isEmpty {
            checks.append(
                .init(
                    "drafts", .note,
                    (drafts.count == 1 ? "1 question waits" : "\(drafts.count) questions wait")
                        + " for an answer (\(list(drafts))); open the chat to ask again"))
        }
        return checks
    }

    // MARK: - Keys and engine

    static func secretsCheck(_ composition: Composition) async -> DoctorReport.Check {
        let backend = await composition.secrets()
        switch backend.protection {
        case .processMemory:
            return .init(
                "secrets", .problem, backend.warning ?? backend.name,
                advice: SecretsBackend.keyringAdvice)
        case .osKeyring, .hardware:
            return .init(
                "secrets", .ok, "\(backend.name)" + (backend.warning.map { ": " + $0 } ?? ""))
        }
    }

    /// Where kept data lives and what is in it, or why nothing is kept.
    static func keptCheck(_ composition: Composition, _ root: String) async -> DoctorReport.Check {
        let kept: KeptData
        do {
            kept = try await composition.kept(creating: false)
        } catch {
            return .init("kept data", .problem, "nothing can be sealed, not even in memory: \(error)")
        }
        switch kept.status {
        case .notYet:
            return .init("kept data", .ok, kept.status.summary)
        case .kept:
            var detail = kept.status.summary
            if let servers = try? await kept.engines.servers() {
                detail += "; \(Plural.of(servers.count, "server")) read"
            }
            if let retention = try? await kept.engines.retention() { detail += "; readings kept \(retention)" }
            let problems = kept.launches.flatMap(\.problems)
            if let notice = kept.notice { return .init("kept data", .note, "\(notice) Now \(detail)") }
            guard problems.isEmpty else {
                return .init(
                    "kept data", .note,
                    detail + "; left as they are, unread: " + list(problems.map(\.description), separator: "; "))
            }
            return .init("kept data", .ok, detail)
        case .notKept(.noSecureStore):
            // The secrets check above says how to get a keyring.
            return .init("kept data", .note, kept.status.summary)
        case .notKept(.keyStoreUnavailable):
            return .init(
                "kept data", .problem, kept.status.summary,
                advice: "unlock the keyring (or start it), then run keep again; what was kept is still there")
        case .failed:
            return .init(
                "kept data", .problem, kept.status.summary,
                advice: "check that \(root)/kept.sqlite is readable and writable by you; moving it away starts kept "
                    + "data afresh (only readings, markers and preferences are lost)")
        }
    }

    static func engineCheck(_ core: AppCore, _ composition: Composition) async -> DoctorReport.Check {
        guard core.engineId == RemoteEngine.engineId else {
            return .init("engine", .ok, "\(core.engineId) (offline; no server, no key)")
        }
        let settings = core.settings
        let server =
            "remote: \(settings.value(SettingRegistry.model.key)?.description ?? "") at "
            + (settings.value(SettingRegistry.baseUrl.key)?.description ?? "")
        guard let ref = try? SettingRegistry.apiKeyRef(settings) else {
            return .init("engine", .problem, server + "; keySlot or keyAccount names no key")
        }
        do {
            let configured = try await composition.secrets().secrets.has(ref)
            return .init(
                "engine", .ok,
                server + "; "
                    + (configured
                        ? "the key in \(ref) is sent"
                        : "no key in \(ref), so none is sent (fine for a local server; a hosted one needs "
                            + RemoteEngine.keySetCommand(ref) + ")"))
        } catch {
            return .init("engine", .problem, server + "; the key cannot be checked: \(error)")
        }
    }

    /// Up to five items, then how many more.
    private static func list(_ items: [String], separator: String = ", ") -> String {
        let shown = items.prefix(5).joined(separator: separator)
        return items.count > 5 ? shown + "\(separator)and \(items.count - 5) more" : shown
    }
}
