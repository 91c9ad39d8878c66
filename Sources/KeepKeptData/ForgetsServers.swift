import KeepPorts
import KeepSealed

/// What every module that keeps rows about a server implements, so that forgetting a
/// server (`keep engines forget URL`) reaches every owner's rows about it.
///
/// The contract: ``forget(_:)`` deletes every row of this owner about `server`, of every
/// kind (readings, markers, preferences about it) and removes it from anything that
/// lists it, and leaves every other server's rows as they were. Forgetting a server
/// never seen succeeds and deletes nothing.
package protocol ForgetsServers: Sendable {
    /// The module whose rows these are.
    var owner: KeptOwner { get }

    /// Deletes this owner's rows about `server`; answers how many rows went.
    func forget(_ server: ServerAddress) async throws(KeptError) -> Int
}
