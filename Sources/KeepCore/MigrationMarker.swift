import Foundation
import KeepPorts

/// What the one-time migration's done-marker holds: when it finished, what it copied, and
/// every member it skipped because it can never be copied, with why.
///
/// The marker is the record doctor reads after the launch that reported the migration: the
/// skipped members are told once, at that launch, and kept here to be shown again. A marker
/// written by an older build holds only the time; it reads as such, with nothing skipped.
public struct MigrationMarker: Sendable, Equatable, Codable {
    /// Where the migration from `store.json` keeps its marker, in the target store.
    public static let key = StorageKey(.cache, "migrated-from-store-json")

    /// When the copy finished (ISO 8601), as the marker's writer wrote it.
    public let finished: String
    /// Values copied; `nil` in a marker of an older build.
    public let copied: Int?
    /// Members that can never be copied (a value that is not text, an id too long for a
    /// file name), each naming the member and why.
    public let skipped: [String]

    /// The marker of a migration that finished at `finished` (ISO 8601), having copied
    /// `copied` values and skipped `skipped`.
    public init(finished: String, copied: Int?, skipped: [String]) {
        self.finished = finished
        self.copied = copied
        self.skipped = skipped
    }

    /// The marker `text` holds: its JSON, or, for an older build's marker, the bare time.
    public init(reading text: String) {
        if let data = text.data(using: .utf8), let marker = try? JSONDecoder().decode(Self.self, from: data) {
            self = marker
        } else {
            self.init(finished: text, copied: nil, skipped: [])
        }
    }

    /// The marker's stored text: one JSON object, keys sorted.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers always encode; the fallback keeps at least the time.
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? finished
    }
}
