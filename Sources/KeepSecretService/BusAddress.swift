/// Which D-Bus bus to find the Secret Service on.
enum BusAddress: Sendable, CustomStringConvertible {
    /// The user's session bus, wherever GIO finds it (`DBUS_SESSION_BUS_ADDRESS`, else the
    /// runtime directory's `bus` socket).
    case session
    /// The bus at a D-Bus address such as `unix:path=/run/user/1000/bus`.
    case address(String)

    /// "the session bus" or "the bus at unix:path=...", for messages.
    var description: String {
        switch self {
        case .session: "the session bus"
        case .address(let address): "the bus at \(address)"
        }
    }
}
