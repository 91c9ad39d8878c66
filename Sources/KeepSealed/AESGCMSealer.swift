import KeepPorts

#if canImport(CCrypto)
    /// The sealing port on libcrypto: AES-256-GCM for payloads, HMAC-SHA256 for subjects.
    ///
    /// Made from the 32-byte data key, which it never uses directly: HKDF-SHA256 derives a
    /// sealing key, a subject-hashing key and a key check from it, each under its own label,
    /// so no key serves two purposes. The derived keys live in one buffer of their own,
    /// wiped with `OPENSSL_cleanse` when the last copy of the sealer goes away.
    ///
    /// A sealed payload is `format (1) ‖ nonce (12) ‖ ciphertext ‖ tag (16)`. The nonce is
    /// fresh from `RAND_bytes` for every seal; the associated data is the row's
    /// ``/KeepPorts/SealBinding`` (owner, kind, shape version, subject hash, length-prefixed, and the
    /// row's time), under the format the payload names: format 2 is written, and a format-1
    /// payload (sealed before times were bound) opens with the binding of its day. Sealing
    /// writes straight into the result and opening decrypts straight into the returned
    /// bytes: no copy of the payload is made on the way.
    public struct AESGCMSealer: SealingPort {
        private let keys: DerivedKeys
        private let cipher: LibCrypto.Cipher

        /// The labels that make each derived key different: the payload key, the subject key
        /// and the key check. Changing one changes every key derived from it, so they are
        /// fixed for format 1.
        private static let labels = [
            "keep sealed v1: AES-256-GCM payload key", "keep sealed v1: HMAC-SHA256 subject key",
            "keep sealed v1: data key check",
        ]

        /// A sealer under `dataKey`; a typed ``/KeepPorts/SealingError/Code/malformed`` error unless it
        /// is 32 bytes. The caller's copy of the key is not kept: wipe it when done.
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

        /// `payload` sealed with AES-256-GCM under a fresh random nonce, bound to
        /// `binding`: it opens only for the same binding and key.
        public func seal(_ payload: [UInt8], for binding: SealBinding) throws(SealingError) -> SealedPayload {
            let associated = binding.associatedData(format: SealedPayload.format)
            let nonceEnd = 1 + SealedPayload.nonceCount
            let tagStart = nonceEnd + payload.count
            let total = tagStart + SealedPayload.tagCount
            let bytes = try [UInt8](unsafeUninitializedCapacity: total) { (buffer, initialized) throws(SealingError) in
                let out = UnsafeMutableRawBufferPointer(buffer)
                out[0] = SealedPayload.format
                let nonce = UnsafeMutableRawBufferPointer(rebasing: out[1..<nonceEnd])
                // A fresh random nonce for every seal: GCM under one key must never see a
                // nonce twice, and 96 random bits make a repeat negligible.
                try LibCrypto.fillRandom(nonce)
                try payload.withBytes { plaintext throws(SealingError) in
                    try associated.withBytes { aad throws(SealingError) in
                        try LibCrypto.sealAES256GCM(
                            cipher, key: keys[0], nonce: UnsafeRawBufferPointer(nonce), aad: aad,
                            plaintext: plaintext,
                            ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[nonceEnd..<tagStart]),
                            tag: UnsafeMutableRawBufferPointer(rebasing: out[tagStart..<total]))
                    }
                }
                initialized = total
            }
            return SealedPayload(sealed: bytes)
        }

        /// The payload of `sealed`, or a `notAuthentic` error when it was altered, sealed
        /// under another key, or sealed for another binding.
        public func open(_ sealed: SealedPayload, for binding: SealBinding) throws(SealingError) -> [UInt8] {
            // The binding of the payload's own format (checked to be one this build knows
            // when the payload was made); the format byte is inside the tag's reach.
            let associated = binding.associatedData(format: sealed.bytes[0])
            let nonceEnd = 1 + SealedPayload.nonceCount
            let tagStart = sealed.bytes.count - SealedPayload.tagCount
            let count = tagStart - nonceEnd
            return try [UInt8](unsafeUninitializedCapacity: count) { (buffer, initialized) throws(SealingError) in
                try sealed.bytes.withBytes { all throws(SealingError) in
                    try associated.withBytes { aad throws(SealingError) in
                        try LibCrypto.openAES256GCM(
                            cipher, key: keys[0], nonce: UnsafeRawBufferPointer(rebasing: all[1..<nonceEnd]),
                            aad: aad,
                            ciphertext: UnsafeRawBufferPointer(rebasing: all[nonceEnd..<tagStart]),
                            tag: UnsafeRawBufferPointer(rebasing: all[tagStart...]),
                            plaintext: UnsafeMutableRawBufferPointer(buffer))
                    }
                }
                initialized = count
            }
        }

        /// The HMAC-SHA256 of `subject` under the key derived for hashing: the same subject
        /// always gives the same hash under one data key, and nothing of the subject can be
        /// read back from it.
        public func subjectHash(_ subject: String) throws(SealingError) -> SubjectHash {
            let message = Array(subject.utf8)
            let hash = try [UInt8](unsafeUninitializedCapacity: SubjectHash.byteCount) {
                (buffer, initialized) throws(SealingError) in
                try message.withBytes { message throws(SealingError) in
                    try LibCrypto.hmacSHA256(
                        key: keys[1], message: message, into: UnsafeMutableRawBufferPointer(buffer))
                }
                initialized = SubjectHash.byteCount
            }
            return try SubjectHash(bytes: hash)
        }

        /// A value that identifies the data key without revealing it or any key derived
        /// for use: stored beside the sealed rows, it tells whether they were sealed under
        /// the key at hand.
        var keyCheck: [UInt8] { Array(keys[2]) }

        /// Whether the derived keys' memory is kept out of swap (`mlock`) and out of core
        /// files (`MADV_DONTDUMP`), as far as the system permitted.
        var keyMemory: (locked: Bool, excludedFromCoreFiles: Bool) { keys.isProtected }

        /// 32 fresh random bytes for a new data key.
        static func makeDataKey() throws(SealingError) -> [UInt8] {
            try [UInt8](unsafeUninitializedCapacity: LibCrypto.keyCount) { (buffer, initialized) throws(SealingError) in
                try LibCrypto.fillRandom(UnsafeMutableRawBufferPointer(buffer))
                initialized = LibCrypto.keyCount
            }
        }

        /// Overwrites `key` with zeros: for the caller's copy of a data key once used.
        static func wipe(_ key: inout [UInt8]) {
            key.withUnsafeMutableBytes { LibCrypto.cleanse($0) }
        }
    }

#endif
