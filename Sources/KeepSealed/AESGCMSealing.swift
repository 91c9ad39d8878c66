import KeepPorts

#if canImport(CCrypto)
    /// ``/KeepPorts/DataKeySealing`` on libcrypto: ``AESGCMSealer``.
    public struct AESGCMSealing: DataKeySealing {
        /// The sealing mechanism on libcrypto; it holds nothing, each data key makes its
        /// own sealer.
        public init() {}

        /// 32: the length of an AES-256 data key.
        public var keyCount: Int { LibCrypto.keyCount }

        /// 32 bytes from `RAND_bytes`, for a new data key.
        public func makeKey() throws(SealingError) -> [UInt8] {
            try AESGCMSealer.makeDataKey()
        }

        /// The ``AESGCMSealer`` under `dataKey`, and the key check that identifies the key
        /// without revealing it.
        public func sealer(for dataKey: [UInt8]) throws(SealingError) -> (sealer: any SealingPort, keyCheck: [UInt8]) {
            let sealer = try AESGCMSealer(dataKey: dataKey)
            return (sealer, sealer.keyCheck)
        }
    }
#endif
