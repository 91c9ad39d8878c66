import KeepPorts

#if canImport(CCrypto)
    /// `DataKeySealing` on libcrypto: ``AESGCMSealer``.
    public struct AESGCMSealing: DataKeySealing {
        /// The sealing mechanism on libcrypto; it holds nothing, each data key makes its
        /// own sealer.
        public init() {}

        public var keyCount: Int { LibCrypto.keyCount }

        public func makeKey() throws(SealingError) -> [UInt8] {
            try AESGCMSealer.makeDataKey()
        }

        public func sealer(for dataKey: [UInt8]) throws(SealingError) -> (sealer: any SealingPort, keyCheck: [UInt8]) {
            let sealer = try AESGCMSealer(dataKey: dataKey)
            return (sealer, sealer.keyCheck)
        }
    }
#endif
