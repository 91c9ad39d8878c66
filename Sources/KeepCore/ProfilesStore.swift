import KeepPorts

/// Reads and writes the servers file (``Profiles``) through the ``/KeepPorts/StoragePort``, and carries
/// today's server settings into it once.
///
/// The carry-over (``migrate(carrying:finished:)``) follows the rules of every migration
/// here: its done-marker (``migrationMarker``, in the `cache` namespace) is written last;
/// it never overwrites a server the file already has; it never deletes or changes the old
/// settings; a failure is thrown for the caller to report, writes no marker, and so is
/// tried again at the next launch.
public struct ProfilesStore: Sendable {
    /// The done-marker of the carry-over of `baseUrl`, `model`, `keySlot` and `keyAccount`.
    public static let migrationMarker = StorageKey(.cache, "migrated-settings-to-servers")

    private let storage: any StoragePort

    /// The servers file in `storage`.
    public init(storage: any StoragePort) {
        self.storage = storage
    }

    /// The profiles as stored; none when there is no file yet. Throws
    /// ``ProfilesError/unreadable(reason:)`` for a file that is not a JSON object.
    public func load() async throws(ProfilesError) -> Profiles {
        let text: String?
        do {
            text = try await storage.read(Profiles.key)
        } catch {
            if error.isOneFilesProblem { throw .unreadable(reason: error.reason ?? error.description) }
            throw .storage(error)
        }
        guard let text else { return Profiles() }
        return try Profiles(text: text)
    }

    /// Writes `profiles` whole. The caller holds the store's lock from its ``load()`` to here,
    /// so that no other process's change is lost.
    public func save(_ profiles: Profiles) async throws(ProfilesError) {
        let text = try profiles.text()
        do {
            try await storage.write(Profiles.key, text)
        } catch {
            throw .storage(error)
        }
    }

    /// Carries `carried` (the server today's settings describe) into the file as the server
    /// it is named after, once: `true` when this call did it, `false` when the marker says it
    /// was done. A file that already has a server of that name keeps it unchanged; a file
    /// with no default names it. `finished` is the marker's time (ISO 8601).
    public func migrate(carrying carried: ServerProfile, finished: String) async throws(ProfilesError) -> Bool {
        do {
            if try await storage.read(Self.migrationMarker) != nil { return false }
        } catch {
            throw .storage(error)
        }
        var profiles = try await load()
        let before = profiles
        if !profiles.hasServerEntry(carried.name) { profiles.set(carried) }
        if profiles.text(ofField: "default") == nil { profiles.useServer(carried.name) }
        if profiles != before { try await save(profiles) }
        // Last: a crash before this line carries over again, and finds the server there.
        let marker = MigrationMarker(finished: finished, copied: profiles == before ? 0 : 1, skipped: [])
        do {
            try await storage.write(Self.migrationMarker, marker.text)
        } catch {
            throw .storage(error)
        }
        return true
    }
}

extension Profiles {
    /// The text of the top-level field `name`, when it is one.
    func text(ofField name: String) -> String? {
        guard case .string(let text)? = fieldValue(name) else { return nil }
        return text
    }
}
