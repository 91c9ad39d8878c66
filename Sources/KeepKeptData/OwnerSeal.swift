import KeepPorts
import KeepSealed

/// An owner's use of the one sealing port: a value of one of its shapes becomes a
/// ``KeptRecord`` for its store, and a record from its store becomes a value again.
///
/// Every record is sealed for the owner, the shape's kind, the version written, the
/// subject and the time it was kept at, so a record opens only as what it was kept as,
/// when it was kept: a row re-dated, or given an older payload, is refused.
struct OwnerSeal: Sendable {
    let owner: KeptOwner
    let sealer: any SealingPort

    /// The keyed hash that stands for `server` in this owner's rows.
    func subject(_ server: ServerAddress) throws(KeptError) -> SubjectHash {
        do {
            return try sealer.subjectHash(server.text)
        } catch {
            throw .sealing("hash the server's address", error)
        }
    }

    /// `value`, sealed as shape `S` about `subject`, kept at `at`.
    func record<S: KeptShape>(
        _ shape: S.Type, _ value: S.Value, about subject: SubjectHash?, at: KeptInstant
    ) throws(KeptError) -> KeptRecord {
        let binding = SealBinding(
            owner: owner, kind: S.kind, shapeVersion: S.version, subject: subject,
            millisecondsSince1970: at.millisecondsSince1970)
        let payload = try S.encode(value)
        do {
            let sealed = try sealer.seal(payload, for: binding)
            return KeptRecord(kind: S.kind, subject: subject, shapeVersion: S.version, at: at, sealed: sealed)
        } catch {
            throw .sealing("seal \(owner) \(S.kind)", error)
        }
    }

    /// The value `record` holds as shape `S`: a typed ``KeptError/Code/unreadable`` error
    /// when it is of another kind, does not open under the key for its row, or is a shape
    /// version `S` cannot read.
    func open<S: KeptShape>(_ shape: S.Type, _ record: KeptRecord) throws(KeptError) -> S.Value {
        guard record.kind == S.kind else {
            throw KeptError(
                .unreadable, operation: "open \(owner) \(S.kind)",
                detail: "the row is a \(record.kind), not a \(S.kind)")
        }
        // Checked before opening: a version never written is a newer build's shape,
        // whether or not its payload would open.
        guard S.versionsEverWritten.contains(record.shapeVersion) else { throw S.unknownVersion(record.shapeVersion) }
        let binding = SealBinding(
            owner: owner, kind: record.kind, shapeVersion: record.shapeVersion, subject: record.subject,
            millisecondsSince1970: record.at.millisecondsSince1970)
        let bytes: [UInt8]
        do {
            bytes = try sealer.open(record.sealed, for: binding)
        } catch {
            throw .sealing("open \(owner) \(S.kind)", error)
        }
        return try S.decode(bytes, version: record.shapeVersion)
    }
}
