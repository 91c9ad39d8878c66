/// The `seen-models` marker of the engines module: per server, the newest model the user
/// has seen (its name and when Keep first saw it listed). An identifier, never a copy of
/// the list. (Its kind is not `models`, so a marker's payload can never open as a
/// reading's.)
///
/// Shape 1: `{"model": name, "firstSeen": ms}`.
enum ModelMarker: KeptShape {
    static let kind = "seen-models"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        let model: String
        let firstSeen: Int64
    }

    static func encode(_ value: WhatIsNew.Mark) throws(KeptError) -> [UInt8] {
        try json(V1(model: value.item, firstSeen: value.position))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> WhatIsNew.Mark {
        guard version == 1 else { throw unknownVersion(version) }
        let shape = try json(V1.self, from: bytes, version: version)
        return WhatIsNew.Mark(item: shape.model, position: shape.firstSeen)
    }
}
