/// The `servers` preference of the engines module: the servers it keeps anything about,
/// in the user's order (a server is added last when its first reading is kept, and
/// removed when it is forgotten).
///
/// It is also the only place a server's address is kept (sealed): rows hold its keyed
/// hash, which cannot be turned back into the address.
///
/// Shape 1: `{"servers": [address, …]}`.
enum ServerOrder: KeptShape {
    static let kind = "servers"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        let servers: [String]
    }

    static func encode(_ value: [ServerAddress]) throws(KeptError) -> [UInt8] {
        try json(V1(servers: value.map(\.text)))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> [ServerAddress] {
        guard version == 1 else { throw unknownVersion(version) }
        var servers: [ServerAddress] = []
        for text in try json(V1.self, from: bytes, version: version).servers {
            do {
                servers.append(try ServerAddress(text))
            } catch {
                throw KeptError(.unreadable, operation: "read servers v1", detail: error.detail)
            }
        }
        return servers
    }
}
