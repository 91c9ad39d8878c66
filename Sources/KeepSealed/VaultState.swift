import KeepPorts

/// What the vault answers at launch: whether kept data can be sealed, and how.
public enum VaultState: Sendable {
    /// Kept data works: seal and open with `sealer`. `notice`, when present, is the
    /// one-time message that earlier data was cleared; show it, then call
    /// ``DataKeyVault/acknowledgeNotice()``.
    case kept(any SealingPort, notice: KeyLossNotice?)
    /// Nothing is kept between launches, and why.
    case notKept(NotKeptReason)

    /// The sealer when kept data works, else `nil`.
    public var sealer: (any SealingPort)? {
        if case .kept(let sealer, _) = self { return sealer }
        return nil
    }
}
