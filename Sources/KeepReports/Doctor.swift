import Foundation
import KeepApp
import KeepChatIndex
import KeepChatSealing
import KeepConversation
import KeepCore
import KeepEngines
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
package enum Doctor {
    /// Runs every check on what `composition` gives.
    package static func examine(_ composition: Composition) async -> DoctorReport {
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
        checks.append(contentsOf: namespacesWritable(root))
        checks.append(contentsOf: leftovers(root))
        checks.append(specialFiles(root))
        let core: AppCore
        switch await composition.boot() {
        case .failed(let reason, let detail):
            checks.append(
                .init(
                    "store", .problem, "\(reason): \(detail)",
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
        checks.append(await secretsCheck(composition, needsKey: await KeyringChecks.needsKey(core)))
        if let plaintext = KeyringChecks.plaintextKeys(root) { checks.append(plaintext) }
        checks.append(await keptCheck(composition, root))
        checks.append(await sealingCheck(composition))
        checks.append(await engineCheck(core, composition))
        checks.append(contentsOf: await keyTransportChecks(core, composition))
        checks.append(coreDumpCheck())
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
        // The data root is yours (Ownership): no other user owns it or may change it.
        do {
            try Ownership.checkDirectories(FileStore.directories(root), calls: POSIXFileSystem())
        } catch {
            return .init(
                "data root", .problem, error.description,
                advice: "if it is yours, chown -R \"$(id -un)\" \(root) && chmod -R go-w \(root); if it is another "
                    + "user's, set XDG_DATA_HOME to a directory of your own")
        }
        // A real block written and flushed, not a permission bit: a read-only mount, and a
        // full disk (which still lets an empty file be made), show here.
        if let failure = probeWrite(in: root, bytes: 4096) {
            return .init(
                "data root", .problem, "\(root) cannot be written: \(failure)", advice: writeAdvice(failure, root))
        }
        return .init("data root", .ok, "\(root) exists, and a block written there reached the disk")
    }

    /// Every file keep opens outside the store (the lock, the settings file, kept data's
    /// files, the chat index's, the question history), each a file or not there yet: a FIFO,
    /// a device or a socket at one of those names is refused by every command that would
    /// open it (opening it could wait for ever), and named here with the fix.
    static func specialFiles(_ root: String) -> DoctorReport.Check {
        let join = { (name: String) in (root as NSString).appendingPathComponent(name) }
        let index = join(ChatIndex.fileName)
        let files =
            [StoreLock(root: root).path, join("store/settings/settings"), join(QuestionHistory.fileName)]
            + KeptData.files(in: root) + [index, index + "-wal", index + "-shm", index + "-journal"]
        var found: [String] = []
        for file in files {
            do {
                try FileKind.refuseUnsafe(file)
            } catch {
                let kind = (try? FileKind.of(file, following: true)).flatMap { $0 } ?? .unknown
                // A file, refused for its owner or its mode (Ownership), says why itself.
                found.append(kind == .regular ? error.description : "\(file) is \(kind), not a file")
            }
        }
        guard !found.isEmpty else {
            return .init("special files", .ok, "none at the names keep opens")
        }
        return .init(
            "special files", .problem, found.joined(separator: "; ") + "; keep does not open such a file",
            advice: "remove \(found.count == 1 ? "it" : "them") (rm): keep makes each file again when it needs it")
    }

    /// Each namespace directory the store would write into, checked with a real file made
    /// and removed there: a directory keep may not write, or one that is a symbolic link
    /// (never followed), is a problem before the first write to it fails. One not made yet
    /// is made by the first write, in the data root checked above.
    static func namespacesWritable(_ root: String) -> [DoctorReport.Check] {
        var problems: [String] = []
        var failures: [StorageError] = []
        for namespace in Namespace.allCases {
            let directory = ((root as NSString).appendingPathComponent("store") as NSString)
                .appendingPathComponent(namespace.rawValue)
            var status = stat()
            guard lstat(directory, &status) == 0 else { continue }  // not made yet
            if status.st_mode & S_IFMT == S_IFLNK {
                problems.append("store/\(namespace.rawValue) is a symbolic link, which keep never follows")
            } else if status.st_mode & S_IFMT != S_IFDIR {
                problems.append("store/\(namespace.rawValue) is not a directory")
            } else if let failure = probeWrite(in: directory, bytes: 0) {
                problems.append("store/\(namespace.rawValue) cannot be written: \(failure)")
                failures.append(failure)
            }
        }
        guard !problems.isEmpty else { return [.init("namespaces", .ok, "each one keep writes is writable")] }
        let store = (root as NSString).appendingPathComponent("store")
        return [
            .init(
                "namespaces", .problem, problems.joined(separator: "; "),
                // A read-only or full disk is no matter of permissions: chmod would not help.
                advice: failures.first { $0.errno == EROFS || $0.code == .full }.map { writeAdvice($0, store) }
                    ?? "make them directories you can write (chmod u+rwx), or move them away so keep makes them anew")
        ]
    }

    /// What to do about a write refused under `place`, by why it was refused: a full disk,
    /// a read-only mount (no permission bit would help), or permissions.
    static func writeAdvice(_ failure: StorageError, _ place: String) -> String {
        if failure.code == .full {
            return "free some space on the disk holding \(place); keep writes nothing until there is room"
        }
        if failure.errno == EROFS {
            return "the file system holding \(place) is mounted read-only: remount it read-write, or set "
                + "XDG_DATA_HOME to a directory on a disk that can be written"
        }
        if failure.errno == EACCES || failure.errno == EPERM {
            return "make \(place) writable by you (chmod u+rwx \(place))"
        }
        return "check the disk holding \(place): keep cannot write there (\(failure))"
    }

    /// Makes a file in `directory`, writes `bytes` zero bytes to it and flushes it, then
    /// removes it; the failure, or `nil` when all of it worked. The name starts with `.`,
    /// which no id encodes to, so a probe a crash leaves behind is never read as a value.
    static func probeWrite(in directory: String, bytes: Int) -> StorageError? {
        let probe = (directory as NSString).appendingPathComponent(".keep-doctor-\(UInt32.random(in: 0...UInt32.max))")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return .system("open", path: probe, errno: errno) }
        defer { unlink(probe) }
        var failure: StorageError?
        let block = [UInt8](repeating: 0, count: bytes)
        let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            failure = .system("write", path: probe, errno: errno)
        } else if written < bytes {
            failure = StorageError(
                code: .full, operation: "write", path: probe, reason: "the disk took only part of a block")
        } else if fsync(descriptor) != 0 {
            failure = .system("fsync", path: probe, errno: errno)
        }
        if close(descriptor) != 0, failure == nil { failure = .system("close", path: probe, errno: errno) }
        return failure
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
        let text = try? await storage.read(MigrationMarker.key)
        guard let text else {
            return .init(
                "migration", .problem, "store.json has not been fully copied into the file store yet",
                advice: "keep retries at every launch; the warning it prints says which value failed")
        }
        let marker = MigrationMarker(reading: text)
        guard marker.skipped.isEmpty else {
            return .init(
                "migration", .note,
                "store.json was copied into the file store (\(marker.finished)), except \(marker.skipped.count) "
                    + "values that can never be copied: " + list(marker.skipped, separator: "; ")
                    + "; store.json keeps them, unchanged, and the copy is not tried again")
        }
        return .init(
            "migration", .ok, "store.json was copied into the file store (\(marker.finished)); it is kept, unchanged")
    }

    static func settingsCheck(_ settings: SettingsStore) -> DoctorReport.Check {
        switch settings.health {
        case .unreadable:
            return .init(
                "settings file", .problem, settings.health.description,
                advice: "fix store/settings/settings by hand, or change any setting to move it aside and start afresh")
        case .refused:
            return .init(
                "settings file", .problem, settings.health.description,
                advice: "replace store/settings/settings with a regular file of your own, or remove it (a symbolic "
                    + "link, a file that is not text or that you may not read is never written through)")
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
        if let drafts = try? await chats.draftIds() {
            var unreadable: [String] = []
            for id in drafts {
                do throws(ChatError) {
                    _ = try await chats.draft(for: id)
                } catch {
                    unreadable.append(error.description)
                }
            }
            if !unreadable.isEmpty {
                checks.append(
                    .init(
                        "draft files", .problem, list(unreadable, separator: "; "),
                        advice: "each is left as it is; fix it under store/drafts, or remove it with "
                            + "`keep store rm drafts ID` to ask in that chat again"))
            }
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

    /// The keychain; see ``KeyringChecks/secrets(_:needsKey:)``. Without the settings
    /// (`needsKey` unknown), a keychain that cannot be used is a problem.
    static func secretsCheck(_ composition: Composition, needsKey: Bool = true) async -> DoctorReport.Check {
        KeyringChecks.secrets(await composition.secrets(), needsKey: needsKey)
    }

    /// Whether the chats are sealed, plain or part-way; a problem when they are sealed and
    /// out of reach (the keyring locked, their key gone).
    static func sealingCheck(_ composition: Composition) async -> DoctorReport.Check {
        let sealing: ChatSealing
        do {
            sealing = try await composition.chatSealing()
        } catch {
            return .init("sealed chats", .problem, "whether the chats are sealed cannot be told: \(error)")
        }
        switch sealing {
        case .sealed(.sealed), .notYet: return .init("sealed chats", .ok, sealing.summary)
        case .sealed, .plain: return .init("sealed chats", .note, sealing.summary)
        case .locked:
            return .init(
                "sealed chats", .problem, sealing.summary,
                advice: "unlock the keyring (or start it), then run keep again; every chat is still there")
        case .keyGone:
            return .init(
                "sealed chats", .problem, sealing.summary,
                advice: "`keep recovery import FILE` puts the key back from a recovery file; no chat was deleted")
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
            // Opening kept data ran SQLite's quick check on the file, read-only, first.
            detail += "; SQLite's quick check finds nothing wrong"
            let problems = kept.launches.flatMap(\.problems)
            if let notice = kept.notice { return .init("kept data", .note, "\(notice) Now \(detail)") }
            guard problems.isEmpty else {
                return .init(
                    "kept data", .note,
                    detail + "; left as they are, unread: " + list(problems.map(\.description), separator: "; "))
            }
            return .init("kept data", .ok, detail)
        case .notKept(let reason) where reason.code == .noSecureStore:
            // The secrets check above says how to get a keyring.
            return .init("kept data", .note, kept.status.summary)
        case .notKept:  // the key store could not be asked, and any reason to come
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

    /// The engine `core` answers with, checked for what its row in ``EngineCatalog`` says
    /// it needs: nothing (offline), a server, a key.
    package static func engineCheck(_ core: AppCore, _ composition: Composition) async -> DoctorReport.Check {
        guard let kind = EngineCatalog.kind(core.engineId) else {
            return .init(
                "engine", .problem, "there is no engine called \(StorageError.quoted(core.engineId))",
                advice: "keep settings set engineId \(EngineCatalog.defaultKind.id)")
        }
        guard kind.needs.contains(.server) else {
            return .init("engine", .ok, "\(kind.id) (offline; no server, no key)")
        }
        let settings = core.settings
        let server =
            "\(kind.id): \(settings.value(SettingRegistry.model.key)?.description ?? "") at "
            + (settings.value(SettingRegistry.baseUrl.key)?.description ?? "")
        guard kind.needs.contains(.key) else { return .init("engine", .ok, server + "; no key is sent") }
        guard let ref = try? SettingRegistry.apiKeyRef(settings) else {
            return .init("engine", .problem, server + "; keySlot or keyAccount names no key")
        }
        return KeyringChecks.engineKey(
            await composition.secrets().presence(of: ref), ref: ref, server: server,
            needsKey: await KeyringChecks.needsKey(core))
    }

    // MARK: - The network edge

    /// Whether the remote engine's key would go over plain http to a host that is not this
    /// machine (``CleartextRule``, the transport's own rule: the host resolved, every address
    /// loopback): a problem unless the user allowed that host by name
    /// (`keyOverHttpHosts`), which is a note. Nothing when no key is stored or the engine is
    /// not the remote one.
    static func keyTransportChecks(_ core: AppCore, _ composition: Composition) async -> [DoctorReport.Check] {
        let settings = core.settings
        guard EngineCatalog.kind(core.engineId)?.needs.contains(.key) == true,
            let base = settings.value(SettingRegistry.baseUrl.key)?.string, let url = URL(string: base),
            let ref = try? SettingRegistry.apiKeyRef(settings)
        else { return [] }
        let verdict = await CleartextRule.verdict(
            for: url, sendsKey: true, allowedHosts: SettingRegistry.keyOverHttpHostsIn(settings))
        let host: String
        switch verdict {
        case .fine, .thisMachine: return []
        case .allowedByName(let name), .refused(let name, _): host = name
        }
        // Whether a key would go depends on whether one is stored: a keyring that cannot be
        // asked (locked) is "cannot tell", never a check left out as if there were no key.
        do {
            guard try await composition.secrets().secrets.has(ref) else { return [] }
        } catch {
            return [
                .init(
                    "key over http", .problem,
                    "cannot tell whether a key in \(ref) would go over plain http to \(host): the keyring could not "
                        + "be asked (\(error))",
                    advice: "unlock the keyring and run keep doctor again; or use an https:// baseUrl")
            ]
        }
        switch verdict {
        case .fine, .thisMachine:
            return []
        case .allowedByName(let host):
            return [
                .init(
                    "key over http", .note,
                    "the key in \(ref) goes over plain http to \(host), as keyOverHttpHosts allows; "
                        + "anyone on that network can read it")
            ]
        case .refused(let host, let detail):
            return [
                .init(
                    "key over http", .problem,
                    "baseUrl is plain http to \(host), \(CleartextRule.notThisMachine(detail)), and a key is stored "
                        + "in \(ref): "
                        + "keep refuses to send it, so the remote engine cannot ask",
                    advice: "use an https:// baseUrl; or remove the key (\(CommandAdvice.keyRemove(ref))); or, on a "
                        + "network you trust, \(CommandAdvice.allowHost(host))")
            ]
        }
    }

    /// Whether this keep can dump core (and so write a key it holds to a file).
    static func coreDumpCheck() -> DoctorReport.Check {
        guard let exposure = ProcessGuard.coreDumpExposure() else {
            return .init("core dumps", .ok, "keep cannot dump core, so a key it holds never lands in a core file")
        }
        return .init(
            "core dumps", .problem, "keep could dump core (\(exposure)), writing a key it holds to a file",
            advice: "run keep where prctl and setrlimit are allowed")
    }

    /// Up to five items, then how many more.
    private static func list(_ items: [String], separator: String = ", ") -> String {
        let shown = items.prefix(5).joined(separator: separator)
        return items.count > 5 ? shown + "\(separator)and \(items.count - 5) more" : shown
    }
}
