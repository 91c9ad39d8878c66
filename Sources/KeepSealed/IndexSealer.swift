import KeepPorts

#if canImport(CCrypto)
    /// The sealer of a cache beside sealed values (the chat index): keyed-hash tokens that
    /// stand for what it looks up, and seals over what it stores, under keys derived from
    /// the same data key as the values it caches, so the cache says nothing to whoever does
    /// not hold that key.
    ///
    /// HKDF-SHA256 derives three keys from the data key, each under a label of its own (none
    /// another key of keep's is derived with): a token key, a seal key and a key check.
    /// - ``token(for:)``: the first 8 bytes of HMAC-SHA256, under the token key, of the
    ///   value's 8 bytes (big-endian): the same for the same value under the same key, and
    ///   two values share one about as rarely as two random 64-bit numbers.
    /// - ``seal(_:binding:)``: AES-256-GCM under the seal key with a fresh random nonce,
    ///   `nonce (12) ‖ ciphertext ‖ tag (16)`, the associated data a label and `binding`
    ///   (where the bytes are stored), so ``open(_:binding:)`` gives them back only for the
    ///   same binding and key, and refuses anything else with
    ///   ``/KeepPorts/SealingError/Code/notAuthentic``.
    /// - ``keyCheck``: the derived check, which names the key without revealing it or any
    ///   key used.
    ///
    /// The data key is not kept (the caller wipes its copy); the derived keys live in memory
    /// of their own, wiped when the last copy of this sealer goes away.
    public struct IndexSealer: Sendable {
        private static let labels = [
            "keep index v1: HMAC-SHA256 token key", "keep index v1: AES-256-GCM seal key",
            "keep index v1: data key check",
        ]
        private static let dataLabel = Array("keep sealed index entry".utf8)

        private let keys: DerivedKeys
        private let cipher: LibCrypto.Cipher

        /// The sealer under `dataKey` (32 bytes, else ``/KeepPorts/SealingError/Code/malformed``).
        public init(dataKey: [UInt8]) throws(SealingError) {
            guard dataKey.count == LibCrypto.keyCount else {
                throw SealingError(
                    code: .malformed, operation: "data key",
                    detail: "a data key is \(LibCrypto.keyCount) bytes, not \(dataKey.count)")
            }
            keys = try dataKey.withBytes { key throws(SealingError) in
                try DerivedKeys(dataKey: key, labels: Self.labels)
            }
            cipher = try LibCrypto.Cipher()
        }

        /// Names the data key without revealing it.
        public var keyCheck: [UInt8] { Array(keys[2]) }

        /// The token that stands for `value` under this key.
        public func token(for value: UInt64) throws(SealingError) -> UInt64 {
            let message = withUnsafeBytes(of: value.bigEndian) { Array($0) }
            var digest = [UInt8](repeating: 0, count: LibCrypto.keyCount)
            try message.withBytes { (bytes) throws(SealingError) in
                try digest.withMutableBytes { (out) throws(SealingError) in
                    try LibCrypto.hmacSHA256(key: keys[0], message: bytes, into: out)
                }
            }
            return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// `bytes` sealed for `binding`.
        public func seal(_ bytes: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8] {
            try LibCrypto.sealFramed(cipher, key: keys[1], aad: Self.dataLabel + binding, plaintext: bytes)
        }

        /// What ``seal(_:binding:)`` sealed for `binding` under this key; `notAuthentic`
        /// for anything else, `malformed` for bytes too short to be a seal.
        public func open(_ sealed: [UInt8], binding: [UInt8]) throws(SealingError) -> [UInt8] {
            try LibCrypto.openFramed(cipher, key: keys[1], aad: Self.dataLabel + binding, sealed: sealed)
        }
    }
#endif
