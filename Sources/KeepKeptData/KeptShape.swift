import Foundation

/// One kind of payload an owner keeps, and every version of its shape it ever wrote.
///
/// The contract:
///
/// - ``encode(_:)`` writes ``version``, the one shape this build writes.
/// - ``decode(_:version:)`` reads every version in ``versionsEverWritten``: the current
///   one as it is, an older one by migrating it to the current value. A version it does
///   not list (a newer build's) is a typed ``KeptError/Code/unreadable`` error, and so are
///   bytes that are not the shape they claim; it never guesses.
/// - A version once written stays in ``versionsEverWritten`` for good, and each has a
///   test that reads it (the shape wall counts them).
///
/// What an owner does with an unreadable payload depends on what it is: a reading is
/// discarded (it can be read again); a preference is the user's choice, left as it is
/// and reported.
protocol KeptShape {
    associatedtype Value: Sendable

    /// The kind the payload is kept under: `"models"`, `"retention"`.
    static var kind: String { get }
    /// The shape version this build writes.
    static var version: Int { get }
    /// Every version any build has written, oldest first; the last is ``version``.
    static var versionsEverWritten: [Int] { get }

    /// The payload's bytes for `value`, in shape ``version``.
    static func encode(_ value: Value) throws(KeptError) -> [UInt8]

    /// The value in `bytes` written in shape `version`.
    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> Value
}

extension KeptShape {
    /// JSON with sorted keys: the same value always gives the same bytes.
    static func json(_ shape: some Encodable) throws(KeptError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return Array(try encoder.encode(shape))
        } catch {
            // Only a value JSON cannot express (a non-finite number) gets here.
            throw .refused("encode \(kind) v\(version)", "the value cannot be written as JSON")
        }
    }

    /// `bytes` read as the JSON shape `type`, which is version `version`.
    static func json<Shape: Decodable>(
        _ type: Shape.Type, from bytes: [UInt8], version: Int
    ) throws(KeptError)
        -> Shape
    {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            // The decoder's message names fields and types, never their values.
            throw KeptError(
                .unreadable, operation: "read \(kind) v\(version)",
                detail: "the payload is not a \(kind) of shape version \(version)")
        }
    }

    /// The error for a version this build never wrote.
    static func unknownVersion(_ version: Int) -> KeptError {
        KeptError(
            .unreadable, operation: "read \(kind) v\(version)",
            detail:
                "shape version \(version) of \(kind) is not one this build reads (it reads "
                + versionsEverWritten.map(String.init).joined(separator: ", ") + "); a newer build wrote it")
    }
}
