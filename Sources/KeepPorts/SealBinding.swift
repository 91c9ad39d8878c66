/// The row a payload is sealed for: its owner, kind, shape version, subject and time.
///
/// All five are bound into the seal as associated data, so a payload opens only for the
/// binding it was sealed with: copied to another owner's table, another kind, another
/// shape version, another subject's row or another time (a row re-dated, or an older
/// payload put under the row's newer time), it fails to open. They stay readable beside
/// the payload (a query needs them); only the subject is hashed.
///
/// The binding is versioned by the sealed payload's format byte: format 2 (written since
/// times are bound) binds the time; a payload of format 1, sealed before, is opened with
/// the binding it was sealed with, which has no time, so kept rows from before still open.
/// The format byte is itself bound, so a format-2 payload relabelled as format 1 fails to
/// open.
public struct SealBinding: Hashable, Sendable {
    /// The module the row belongs to.
    public let owner: KeptOwner
    /// What the payload is, in the owner's words: `"models"`, `"health"`, `"marker"`.
    public let kind: String
    /// The version of the payload's shape, so a reader knows how to decode it.
    public let shapeVersion: Int
    /// What the row is about, or `nil` for a row about nothing in particular (a
    /// preference of the whole app).
    public let subject: SubjectHash?
    /// When the row was kept, in whole milliseconds since 1970, as its store keeps it beside
    /// the payload; `nil` for a payload bound to no time.
    public let millisecondsSince1970: Int64?

    /// The binding of a payload of `kind`, shape `shapeVersion`, about `subject`, in
    /// `owner`'s table, bound to no time.
    public init(owner: KeptOwner, kind: String, shapeVersion: Int, subject: SubjectHash?) {
        self.init(owner: owner, kind: kind, shapeVersion: shapeVersion, subject: subject, millisecondsSince1970: nil)
    }

    /// The binding of a payload of `kind`, shape `shapeVersion`, about `subject`, in
    /// `owner`'s table, kept at `millisecondsSince1970` (`nil`: bound to no time).
    public init(
        owner: KeptOwner, kind: String, shapeVersion: Int, subject: SubjectHash?, millisecondsSince1970: Int64?
    ) {
        self.owner = owner
        self.kind = kind
        self.shapeVersion = shapeVersion
        self.subject = subject
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The associated data for this binding under sealed-payload format `format`.
    ///
    /// Every variable-length field carries a 4-byte big-endian length and the version is
    /// a fixed 8 bytes, so no two different bindings encode to the same bytes (an owner
    /// `ab` with kind `c` never collides with owner `a` and kind `bc`). A leading label
    /// keeps these bytes from meaning anything to another protocol. From format 2 on, the
    /// time follows: one byte saying whether there is one, then 8 bytes (zero when none).
    package func associatedData(format: UInt8) -> [UInt8] {
        let label = "keep sealed row".utf8
        var out: [UInt8] = []
        out.reserveCapacity(
            4 * 4 + 8 + 1 + label.count + owner.name.utf8.count + kind.utf8.count + SubjectHash.byteCount + 9)
        Self.appendField(label, to: &out)
        out.append(format)
        Self.appendField(owner.name.utf8, to: &out)
        Self.appendField(kind.utf8, to: &out)
        withUnsafeBytes(of: Int64(shapeVersion).bigEndian) { out.append(contentsOf: $0) }
        Self.appendField(subject?.bytes ?? [], to: &out)
        if format >= 2 {
            out.append(millisecondsSince1970 == nil ? 0 : 1)
            withUnsafeBytes(of: (millisecondsSince1970 ?? 0).bigEndian) { out.append(contentsOf: $0) }
        }
        return out
    }

    private static func appendField(_ field: some Collection<UInt8>, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(field.count).bigEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: field)
    }
}
