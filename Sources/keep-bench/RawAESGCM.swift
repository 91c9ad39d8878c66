internal import CCrypto

/// AES-256-GCM straight on libcrypto's EVP interface: the floor the sealing port is
/// measured against, doing the same work on the same bytes with nothing around it.
///
/// Like the port it fetches the cipher once, makes a context per call, draws a fresh
/// 12-byte nonce from `RAND_bytes` for every seal and allocates the result; unlike the
/// port it has no binding to encode, no format byte and no typed checks. Output is
/// `nonce (12) ‖ ciphertext ‖ tag (16)`. Every call's result is checked right after it;
/// the context is freed with `defer`, the key wiped when the value goes.
final class RawAESGCM: Sendable {
    private let cipher: Cipher
    private let key: Key

    static let nonceCount = 12
    static let tagCount = 16

    init() throws(BenchError) {
        cipher = try Cipher()
        key = try Key()
    }

    /// `plaintext` sealed under the key with `aad` authenticated beside it.
    func seal(_ plaintext: [UInt8], aad: [UInt8]) throws(BenchError) -> [UInt8] {
        let total = Self.nonceCount + plaintext.count + Self.tagCount
        return try [UInt8](unsafeUninitializedCapacity: total) { (out, initialized) throws(BenchError) in
            guard let base = out.baseAddress else { return }
            let nonce = base
            let body = base + Self.nonceCount
            let tag = body + plaintext.count
            // A fresh nonce per seal: GCM must never see one twice under a key.
            try Self.check(RAND_bytes(nonce, Int32(Self.nonceCount)), "RAND_bytes")
            guard let context = EVP_CIPHER_CTX_new() else { throw Self.failure("EVP_CIPHER_CTX_new") }
            defer { EVP_CIPHER_CTX_free(context) }  // frees, and wipes, the expanded key
            // The default GCM nonce length is 96 bits, so cipher, key and nonce go in one call.
            try Self.check(EVP_EncryptInit_ex(context, cipher.handle, nil, key.bytes, nonce), "EVP_EncryptInit_ex")
            var written: Int32 = 0
            // The associated data first, with no output buffer.
            try Self.check(EVP_EncryptUpdate(context, nil, &written, aad, Int32(aad.count)), "EVP_EncryptUpdate (aad)")
            try Self.check(
                EVP_EncryptUpdate(context, body, &written, plaintext, Int32(plaintext.count)), "EVP_EncryptUpdate")
            // GCM writes nothing at the end; the call completes the tag.
            try Self.check(EVP_EncryptFinal_ex(context, tag, &written), "EVP_EncryptFinal_ex")
            try Self.check(
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagCount), tag), "EVP_CIPHER_CTX_ctrl")
            initialized = total
        }
    }

    /// The plaintext of `sealed`, when its tag verifies over it and `aad`.
    func open(_ sealed: [UInt8], aad: [UInt8]) throws(BenchError) -> [UInt8] {
        let count = sealed.count - Self.nonceCount - Self.tagCount
        guard count >= 0 else { throw BenchError(.library, "open", "\(sealed.count) bytes is too short to be sealed") }
        return try sealed.withUnsafeBufferPointer { (input) throws(BenchError) -> [UInt8] in
            guard let base = input.baseAddress else { return [] }
            let body = base + Self.nonceCount
            let tag = UnsafeMutableRawPointer(mutating: body + count)
            return try [UInt8](unsafeUninitializedCapacity: count) { (out, initialized) throws(BenchError) in
                guard let context = EVP_CIPHER_CTX_new() else { throw Self.failure("EVP_CIPHER_CTX_new") }
                defer { EVP_CIPHER_CTX_free(context) }
                try Self.check(EVP_DecryptInit_ex(context, cipher.handle, nil, key.bytes, base), "EVP_DecryptInit_ex")
                var written: Int32 = 0
                try Self.check(
                    EVP_DecryptUpdate(context, nil, &written, aad, Int32(aad.count)), "EVP_DecryptUpdate (aad)")
                try Self.check(
                    EVP_DecryptUpdate(context, out.baseAddress, &written, body, Int32(count)), "EVP_DecryptUpdate")
                // The expected tag goes in before the final call, which compares it.
                try Self.check(
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagCount), tag), "EVP_CIPHER_CTX_ctrl"
                )
                var scratch: (UInt64, UInt64) = (0, 0)
                let verified = withUnsafeMutableBytes(of: &scratch) {
                    EVP_DecryptFinal_ex(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
                }
                guard verified == 1 else {
                    ERR_clear_error()
                    throw BenchError(.library, "EVP_DecryptFinal_ex", "the tag did not verify")
                }
                initialized = count
            }
        }
    }

    /// `result` must be 1, libcrypto's success; else the typed error for `call`.
    private static func check(_ result: Int32, _ call: String) throws(BenchError) {
        guard result == 1 else { throw failure(call) }
    }

    /// The error for a failed call, with libcrypto's first queued code; the queue is emptied.
    private static func failure(_ call: String) -> BenchError {
        let code = ERR_get_error()
        ERR_clear_error()
        return BenchError(.library, call, "libcrypto error \(code)")
    }

    /// AES-256-GCM fetched from the default provider once, freed with the last holder.
    private final class Cipher: Sendable {
        nonisolated(unsafe) let handle: OpaquePointer

        init() throws(BenchError) {
            guard let handle = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
                throw RawAESGCM.failure("EVP_CIPHER_fetch")
            }
            self.handle = handle
        }

        deinit { EVP_CIPHER_free(handle) }
    }

    /// A random 32-byte key in a buffer of its own, wiped when freed.
    private final class Key: Sendable {
        nonisolated(unsafe) let bytes: UnsafeMutablePointer<UInt8>

        init() throws(BenchError) {
            bytes = .allocate(capacity: 32)
            guard RAND_bytes(bytes, 32) == 1 else {
                bytes.deallocate()
                throw RawAESGCM.failure("RAND_bytes")
            }
        }

        deinit {
            OPENSSL_cleanse(bytes, 32)
            bytes.deallocate()
        }
    }
}
