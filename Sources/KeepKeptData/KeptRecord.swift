import KeepPorts
import KeepSealed

/// One kept row as an owner hands it to its store and gets it back: a sealed payload and
/// the bookkeeping beside it, in clear.
///
/// This is all a store ever sees. The kind, the shape version and the time stay readable
/// because a query needs them (the newest of a kind, readings older than the retention);
/// the subject is a keyed hash; the payload is sealed for exactly this owner, kind, shape
/// version and subject, so a store cannot move it to another row without it failing to
/// open.
package struct KeptRecord: Hashable, Sendable {
    /// What the payload is, in the owner's words: `"models"`, `"retention"`.
    package let kind: String
    /// What the row is about (a server), or `nil` for a row about nothing in particular.
    package let subject: SubjectHash?
    /// The version of the payload's shape.
    package let shapeVersion: Int
    /// When it was read, marked or set.
    package let at: KeptInstant
    /// The payload, sealed.
    package let sealed: SealedPayload

    /// The row of `kind` about `subject`, kept at `at`, its payload sealed for exactly this
    /// binding.
    package init(kind: String, subject: SubjectHash?, shapeVersion: Int, at: KeptInstant, sealed: SealedPayload) {
        self.kind = kind
        self.subject = subject
        self.shapeVersion = shapeVersion
        self.at = at
        self.sealed = sealed
    }
}
