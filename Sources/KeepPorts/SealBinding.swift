/// The row a payload is sealed for: its owner, kind, shape version and subject.
///
/// All four are bound into the seal as associated data, so a payload opens only for the
/// binding it was sealed with: copied to another owner's table, another kind, another
/// shape version or another subject's row, it fails to open. They stay readable beside
/// the payload (a query needs them); only the subject is hashed.
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

    /// The binding of a payload of `kind`, shape `shapeVersion`, about `subject`, in
    /// `owner`'s table.
    public init(owner: KeptOwner, kind: String, shapeVersion: Int, subject: SubjectHash?) {
        self.owner = owner
        self.kind = kind
        self.shapeVersion = shapeVersion
        self.subject = subject
    }

    /// The associated data for this binding under sealed-payload format `format`.
    ///
    /// Every variable-length field carries a 4-byte big-endian length and the version is
    /// a fixed 8 bytes, so no two different bindings encode to the same bytes (an owner
    /// `ab` with kind `c` never collides with owner `a` and kind `bc`). A leading label
    /// keeps these bytes from meaning anything to another protocol.
    package func associatedData(format: UInt8) -> [UInt8] {
        let label = "keep sealed row".utf8
        var out: [UInt8] = []
        out.reserveCapacity(
            4 * 4 + 8 + 1 + label.count + owner.name.utf8.count + kind.utf8.count + SubjectHash.byteCount)
        Self.appendField(label, to: &out)
        out.append(format)
        Self.appendField(owner.name.utf8, to: &out)
        Self.appendField(kind.utf8, to: &out)
        withUnsafeBytes(of: Int64(shapeVersion).bigEndian) { out.append(contentsOf: $0) }
        Self.appendField(subject?.bytes ?? [], to: &out)
        return out
    }

    private static func appendField(_ field: some Collection<UInt8>, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(field.count).bigEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: field)
    }
}
