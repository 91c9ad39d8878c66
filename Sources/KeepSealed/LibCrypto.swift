import KeepPorts

#if canImport(CCrypto)
    internal import CCrypto

    /// The sealer's one seam onto libcrypto: AES-256-GCM, HMAC-SHA256, HKDF-SHA256, scrypt,
    /// the random generator and `OPENSSL_cleanse`, over raw buffers.
    ///
    /// Every call's result is checked right after it; a failure becomes a typed
    /// ``SealingError`` naming the call and libcrypto's error code, and the library's error
    /// queue is emptied so a later report never carries a stale code. Contexts are freed
    /// with `defer`. Nothing here keeps a copy of a key or a payload.
    enum LibCrypto {
        /// Bytes in an AES-256 key, an HMAC-SHA256 output and a data key.
        static let keyCount = 32

        // MARK: - Random

        /// Fills `buffer` from the operating system's generator (`RAND_bytes`), or throws;
        /// never returns weak or partial randomness.
        static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws(SealingError) {
            guard let base = buffer.baseAddress else { return }
            guard let count = Int32(exactly: buffer.count) else { throw tooLarge("RAND_bytes", buffer.count) }
            // RAND_bytes answers 1 only when every byte came from a seeded generator.
            guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), count) == 1 else {
                throw failure("RAND_bytes", "no randomness is available")
            }
        }

        // MARK: - AES-256-GCM

        /// AES-256-GCM as fetched from libcrypto's default provider, once, and freed when the
        /// last holder lets go. (`EVP_aes_256_gcm()` makes OpenSSL 3 look the algorithm up in
        /// its provider store on every init; at 64 KiB that lookup is a measurable share of
        /// a seal.)
        ///
        /// `@unchecked Sendable`: a fetched algorithm is immutable and reference-counted, and
        /// libcrypto documents it as safe to share between threads.
        final class Cipher: @unchecked Sendable {
            let handle: OpaquePointer

            init() throws(SealingError) {
                guard let handle = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
                    throw failure("EVP_CIPHER_fetch", "AES-256-GCM is not available")
                }
                self.handle = handle
            }

            deinit {
                EVP_CIPHER_free(handle)
            }
        }

        /// Encrypts `plaintext` into `ciphertext` (the same length) and writes the 16-byte
        /// tag, authenticating `aad` too. `key` is 32 bytes, `nonce` 12.
        static func sealAES256GCM(
            _ cipher: Cipher, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
            plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer,
            tag: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            try checkShapes(key: key, nonce: nonce, tag: tag.count, "seal")
            guard plaintext.count == ciphertext.count else { throw shape("seal", "ciphertext buffer size") }
            guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new", "no cipher context") }
            // The context holds the expanded key: freeing it also wipes it.
            defer { EVP_CIPHER_CTX_free(context) }

            // GCM's default nonce length is the 96 bits we use, so cipher, key and nonce are
            // given in one call (a second call, or setting the length, costs time on every seal).
            guard EVP_EncryptInit_ex(context, cipher.handle, nil, bytes(key), bytes(nonce)) == 1 else {
                throw failure("EVP_EncryptInit_ex", "cannot start AES-256-GCM with the key and nonce")
            }
            // The associated data goes in before any plaintext, with no output buffer.
            try update(context, "EVP_EncryptUpdate", EVP_EncryptUpdate, input: aad, output: nil)
            try update(context, "EVP_EncryptUpdate", EVP_EncryptUpdate, input: plaintext, output: ciphertext)
            // GCM is a stream mode: finishing writes no bytes, it only completes the tag.
            try finish(context, "EVP_EncryptFinal_ex", EVP_EncryptFinal_ex)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), tag.baseAddress) == 1 else {
                throw failure("EVP_CIPHER_CTX_ctrl", "cannot read the tag")
            }
        }

        /// Decrypts `ciphertext` into `plaintext` and verifies `tag` over it and `aad`.
        ///
        /// Throws ``SealingError/Code/notAuthentic`` when the tag does not verify, after
        /// wiping `plaintext`: a caller never holds bytes that were not authenticated.
        static func openAES256GCM(
            _ cipher: Cipher, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
            ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            try checkShapes(key: key, nonce: nonce, tag: tag.count, "open")
            guard plaintext.count == ciphertext.count else { throw shape("open", "plaintext buffer size") }
            guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new", "no cipher context") }
            defer { EVP_CIPHER_CTX_free(context) }
            do throws(SealingError) {
                // Cipher, key and 96-bit nonce in one call, as when sealing.
                guard EVP_DecryptInit_ex(context, cipher.handle, nil, bytes(key), bytes(nonce)) == 1 else {
                    throw failure("EVP_DecryptInit_ex", "cannot start AES-256-GCM with the key and nonce")
                }
                try decryptAndVerify(context, aad: aad, ciphertext: ciphertext, tag: tag, into: plaintext)
            } catch {
                // Whatever was decrypted before the failure is unauthenticated: wipe it.
                cleanse(plaintext)
                throw error
            }
        }

        /// The steps of an opening after its context has the cipher, the key and the nonce:
        /// `aad` authenticated, `ciphertext` decrypted into `plaintext`, and `tag` checked by
        /// the final call. `notAuthentic` when the tag does not verify (the caller wipes
        /// `plaintext`).
        private static func decryptAndVerify(
            _ context: OpaquePointer, aad: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
            tag: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            try update(context, "EVP_DecryptUpdate", EVP_DecryptUpdate, input: aad, output: nil)
            try update(context, "EVP_DecryptUpdate", EVP_DecryptUpdate, input: ciphertext, output: plaintext)
            // The expected tag must be set before the final call, which compares it.
            let expected = UnsafeMutableRawPointer(mutating: tag.baseAddress)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), expected) == 1 else {
                throw failure("EVP_CIPHER_CTX_ctrl", "cannot set the expected tag")
            }
            // A final result other than 1 is the tag failing to verify: the only answer GCM
            // gives for altered bytes, a wrong key or wrong associated data.
            var written: Int32 = 0
            var scratch: (UInt64, UInt64) = (0, 0)
            let verified = withUnsafeMutableBytes(of: &scratch) {
                EVP_DecryptFinal_ex(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
            }
            guard verified == 1, written == 0 else {
                ERR_clear_error()
                throw SealingError(
                    code: .notAuthentic, operation: "open",
                    detail: "the payload did not authenticate (altered, sealed under another key, or for another row)")
            }
        }

        /// An AES-256-GCM context holding one key's schedule, for opening many framed payloads
        /// (`nonce (12) ‖ ciphertext ‖ tag (16)`) under that key one after another: a sealed
        /// value's records. Each payload starts afresh with its own nonce; the key is expanded
        /// once, not for every record (a context made, keyed and freed per record is a cost a
        /// chat of thousands of turns pays thousands of times). One opener is used by one
        /// thread at a time.
        ///
        /// Freeing the context, when the opener goes away, wipes the expanded key.
        struct Opener: ~Copyable {
            private let context: OpaquePointer

            /// An opener under `key` (32 bytes).
            init(_ cipher: Cipher, key: UnsafeRawBufferPointer) throws(SealingError) {
                guard key.count == keyCount else { throw shape("open", "a \(key.count)-byte key (AES-256 takes 32)") }
                guard let context = EVP_CIPHER_CTX_new() else {
                    throw failure("EVP_CIPHER_CTX_new", "no cipher context")
                }
                // The cipher and key now, no nonce: each payload's init below gives only its
                // nonce, which keeps the key schedule.
                guard EVP_DecryptInit_ex(context, cipher.handle, nil, bytes(key), nil) == 1 else {
                    EVP_CIPHER_CTX_free(context)
                    throw failure("EVP_DecryptInit_ex", "cannot start AES-256-GCM with the key")
                }
                self.context = context
            }

            deinit {
                EVP_CIPHER_CTX_free(context)
            }

            /// The plaintext of `sealed` (framed as ``sealFramed(_:key:aad:plaintext:)`` frames
            /// it), `aad` authenticated with it, written to `plaintext` (exactly
            /// `sealed.count - 28` bytes). `malformed` for bytes too short to hold a nonce and a
            /// tag; `notAuthentic` when the tag does not verify, `plaintext` wiped first.
            func open(
                _ sealed: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
                into plaintext: UnsafeMutableRawBufferPointer
            ) throws(SealingError) {
                let nonceCount = SealedPayload.nonceCount
                guard sealed.count >= nonceCount + SealedPayload.tagCount else {
                    throw SealingError(
                        code: .malformed, operation: "open", detail: "the bytes are too short to be sealed")
                }
                let tagStart = sealed.count - SealedPayload.tagCount
                guard plaintext.count == tagStart - nonceCount else { throw shape("open", "plaintext buffer size") }
                do throws(SealingError) {
                    // The nonce alone: the cipher and key are the context's already.
                    guard
                        EVP_DecryptInit_ex(
                            context, nil, nil, nil, bytes(UnsafeRawBufferPointer(rebasing: sealed[..<nonceCount]))) == 1
                    else {
                        throw failure("EVP_DecryptInit_ex", "cannot start AES-256-GCM with the nonce")
                    }
                    try decryptAndVerify(
                        context, aad: aad, ciphertext: UnsafeRawBufferPointer(rebasing: sealed[nonceCount..<tagStart]),
                        tag: UnsafeRawBufferPointer(rebasing: sealed[tagStart...]), into: plaintext)
                } catch {
                    // Whatever was decrypted before the failure is unauthenticated: wipe it.
                    cleanse(plaintext)
                    throw error
                }
            }
        }

        /// `plaintext` sealed under `key` with a fresh random nonce, `aad` authenticated with
        /// it, laid out `nonce (12) ‖ ciphertext ‖ tag (16)`: the sealed records and index
        /// entries share this layout.
        static func sealFramed(
            _ cipher: Cipher, key: UnsafeRawBufferPointer, aad: [UInt8], plaintext: [UInt8]
        ) throws(SealingError) -> [UInt8] {
            let nonceCount = SealedPayload.nonceCount
            let tagStart = nonceCount + plaintext.count
            let total = tagStart + SealedPayload.tagCount
            return try [UInt8](unsafeUninitializedCapacity: total) { (buffer, initialized) throws(SealingError) in
                let out = UnsafeMutableRawBufferPointer(buffer)
                // A fresh random nonce for every seal: GCM under one key must never see one twice.
                try fillRandom(UnsafeMutableRawBufferPointer(rebasing: out[..<nonceCount]))
                try plaintext.withBytes { (plain) throws(SealingError) in
                    try aad.withBytes { (aad) throws(SealingError) in
                        try sealAES256GCM(
                            cipher, key: key, nonce: UnsafeRawBufferPointer(rebasing: out[..<nonceCount]), aad: aad,
                            plaintext: plain,
                            ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[nonceCount..<tagStart]),
                            tag: UnsafeMutableRawBufferPointer(rebasing: out[tagStart...]))
                    }
                }
                initialized = total
            }
        }

        /// The plaintext of `sealed` (laid out as ``sealFramed(_:key:aad:plaintext:)`` lays it
        /// out) under `key` and `aad`; `notAuthentic` for anything else, `malformed` for bytes
        /// too short to hold a nonce and a tag.
        static func openFramed(
            _ cipher: Cipher, key: UnsafeRawBufferPointer, aad: [UInt8], sealed: [UInt8]
        ) throws(SealingError) -> [UInt8] {
            var plaintext: [UInt8] = []
            try openFramed(cipher, key: key, aad: aad, sealed: sealed, appendingTo: &plaintext)
            return plaintext
        }

        /// ``openFramed(_:key:aad:sealed:)``, its plaintext appended to `out` (decrypted in
        /// place there, no copy of its own); on any error `out` is as it was.
        static func openFramed(
            _ cipher: Cipher, key: UnsafeRawBufferPointer, aad: [UInt8], sealed: [UInt8], appendingTo out: inout [UInt8]
        ) throws(SealingError) {
            let nonceCount = SealedPayload.nonceCount
            guard sealed.count >= nonceCount + SealedPayload.tagCount else {
                throw SealingError(code: .malformed, operation: "open", detail: "the bytes are too short to be sealed")
            }
            let tagStart = sealed.count - SealedPayload.tagCount
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: tagStart - nonceCount))
            // The array's closure rethrows untyped: the typed error is carried out of it.
            let failure = out.withUnsafeMutableBytes { (all) -> SealingError? in
                do throws(SealingError) {
                    try sealed.withBytes { (sealed) throws(SealingError) in
                        try aad.withBytes { (aad) throws(SealingError) in
                            try openAES256GCM(
                                cipher, key: key, nonce: UnsafeRawBufferPointer(rebasing: sealed[..<nonceCount]),
                                aad: aad, ciphertext: UnsafeRawBufferPointer(rebasing: sealed[nonceCount..<tagStart]),
                                tag: UnsafeRawBufferPointer(rebasing: sealed[tagStart...]),
                                plaintext: UnsafeMutableRawBufferPointer(rebasing: all[start...]))
                        }
                    }
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                out.removeSubrange(start...)
                throw failure
            }
        }

        // MARK: - HMAC-SHA256 and HKDF-SHA256

        /// HMAC-SHA256 of `message` under `key`, written to `output` (32 bytes).
        static func hmacSHA256(
            key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            guard output.count == keyCount else { throw shape("HMAC", "output size") }
            guard let keyCount = Int32(exactly: key.count) else { throw tooLarge("HMAC", key.count) }
            var written: UInt32 = 0
            // One-shot HMAC: it answers the output pointer on success and NULL on failure.
            let result = HMAC(
                EVP_sha256(), bytes(key), keyCount, bytes(message), message.count,
                output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
            guard result != nil, written == UInt32(output.count) else { throw failure("HMAC", "HMAC-SHA256 failed") }
        }

        /// HKDF-SHA256 (RFC 5869, extract then expand) of `key` with `salt` and `info`,
        /// filling `output`. An empty `salt` is the RFC's default (a string of zeros).
        static func hkdfSHA256(
            key: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            guard let outputBase = output.baseAddress else { return }
            // OpenSSL 3 reaches HKDF through the EVP_KDF interface: fetch the algorithm, make
            // a context, then derive with the parameters in one call.
            guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw failure("EVP_KDF_fetch", "no HKDF") }
            defer { EVP_KDF_free(kdf) }
            guard let context = EVP_KDF_CTX_new(kdf) else { throw failure("EVP_KDF_CTX_new", "no HKDF context") }
            // The context keeps the key and the pseudorandom key: freeing it wipes them.
            defer { EVP_KDF_CTX_free(context) }

            // OSSL_PARAM keeps the name and value pointers, so both must outlive the derive
            // call: the names (OSSL_KDF_PARAM_DIGEST, _KEY, _INFO, _SALT) are static strings,
            // the values our caller's buffers.
            var digest: [CChar] = Array("SHA256".utf8CString)
            let derived = digest.withUnsafeMutableBufferPointer { digestName -> Int32 in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(name("digest"), digestName.baseAddress, 0),
                    OSSL_PARAM_construct_octet_string(name("key"), mutable(key), key.count),
                    OSSL_PARAM_construct_octet_string(name("info"), mutable(info), info.count),
                ]
                if !salt.isEmpty {
                    parameters.append(
                        OSSL_PARAM_construct_octet_string(name("salt"), mutable(salt), salt.count))
                }
                parameters.append(OSSL_PARAM_construct_end())
                return EVP_KDF_derive(context, outputBase.assumingMemoryBound(to: UInt8.self), output.count, parameters)
            }
            guard derived == 1 else { throw failure("EVP_KDF_derive", "HKDF-SHA256 failed") }
        }

        // MARK: - scrypt

        /// scrypt (RFC 7914) of `passphrase` with `salt`, cost `n` (a power of two), block
        /// size `r` and parallelism `p`, filling `output`; at most `maxMemory` bytes of work
        /// space, so a file's parameters can never make it take more.
        static func scrypt(
            passphrase: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, n: UInt64, r: UInt64, p: UInt64,
            maxMemory: UInt64, into output: UnsafeMutableRawBufferPointer
        ) throws(SealingError) {
            guard let outputBase = output.baseAddress else { return }
            // A passphrase or salt of no bytes still needs a pointer: libcrypto reads none.
            var none: UInt8 = 0
            let derived = withUnsafeMutablePointer(to: &none) { empty -> Int32 in
                EVP_PBE_scrypt(
                    passphrase.baseAddress?.assumingMemoryBound(to: CChar.self)
                        ?? UnsafeRawPointer(empty).assumingMemoryBound(to: CChar.self), passphrase.count,
                    bytes(salt) ?? UnsafePointer(empty), salt.count, n, r, p, maxMemory,
                    outputBase.assumingMemoryBound(to: UInt8.self), output.count)
            }
            // 1 on success; 0 for parameters out of range (n not a power of two, the memory
            // past maxMemory) as well as for a failure inside.
            guard derived == 1 else {
                throw failure("EVP_PBE_scrypt", "scrypt failed (its parameters are out of range)")
            }
        }

        // MARK: - Wiping

        /// Overwrites `buffer` with zeros in a way the compiler cannot optimise away.
        static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
            guard let base = buffer.baseAddress else { return }
            OPENSSL_cleanse(base, buffer.count)
        }

        // MARK: - Helpers

        private typealias Update = (
            OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32
        ) -> Int32
        private typealias Final = (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32

        /// One `EVP_*Update` over `input`; `output` nil for associated data. Skipped for no
        /// input; refuses a buffer past `Int32` and any output length but the input's.
        private static func update(
            _ context: OpaquePointer, _ call: String, _ function: Update, input: UnsafeRawBufferPointer,
            output: UnsafeMutableRawBufferPointer?
        ) throws(SealingError) {
            guard !input.isEmpty else { return }
            guard let count = Int32(exactly: input.count) else { throw tooLarge(call, input.count) }
            var written: Int32 = 0
            let out = output?.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard function(context, out, &written, bytes(input), count) == 1 else {
                throw failure(call, "update failed")
            }
            // A stream mode writes exactly as much as it reads.
            if output != nil, written != count { throw failure(call, "wrote \(written) of \(count) bytes") }
        }

        /// The `EVP_*Final_ex` of an encryption, which for GCM must write nothing.
        private static func finish(_ context: OpaquePointer, _ call: String, _ function: Final) throws(SealingError) {
            var written: Int32 = 0
            var scratch: (UInt64, UInt64) = (0, 0)
            let result = withUnsafeMutableBytes(of: &scratch) {
                function(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
            }
            guard result == 1, written == 0 else { throw failure(call, "finishing failed") }
        }

        private static func checkShapes(
            key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, tag: Int, _ operation: String
        ) throws(SealingError) {
            guard key.count == keyCount else { throw shape(operation, "a \(key.count)-byte key (AES-256 takes 32)") }
            guard nonce.count == SealedPayload.nonceCount else { throw shape(operation, "a \(nonce.count)-byte nonce") }
            guard tag == SealedPayload.tagCount else { throw shape(operation, "a \(tag)-byte tag") }
        }

        /// `buffer`'s bytes as libcrypto's `const unsigned char *` (nil when empty).
        private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
            buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        }

        /// The `void *` an octet-string parameter is declared with; libcrypto only reads it.
        private static func mutable(_ buffer: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer? {
            UnsafeMutableRawPointer(mutating: buffer.baseAddress)
        }

        /// A parameter name as a C string that lives as long as the program does.
        private static func name(_ name: StaticString) -> UnsafePointer<CChar> {
            UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }

        private static func shape(_ operation: String, _ what: String) -> SealingError {
            SealingError(code: .malformed, operation: operation, detail: "wrong \(what)")
        }

        private static func tooLarge(_ call: String, _ count: Int) -> SealingError {
            SealingError(code: .malformed, operation: call, detail: "\(count) bytes is more than one call can take")
        }

        /// The error for a failed libcrypto call, with the library's first queued code; the
        /// queue is then emptied.
        private static func failure(_ call: String, _ detail: String) -> SealingError {
            let code = ERR_get_error()
            ERR_clear_error()
            return SealingError(code: .library, operation: call, detail: detail, libraryError: code == 0 ? nil : code)
        }
    }
#endif
