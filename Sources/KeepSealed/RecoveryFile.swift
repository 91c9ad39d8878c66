import Foundation
import KeepPorts

/// A data key wrapped under a passphrase, as a file a person keeps somewhere safe: what
/// brings sealed data back on a new machine, or after the keyring was reset.
///
/// The key is sealed with AES-256-GCM under a key scrypt derives from the passphrase. The
/// file names its format, its version, what the key is for (``purpose``) and scrypt's
/// parameters, and every one of them is bound into the seal: a file whose parameters or
/// purpose were altered opens under no passphrase. A wrong passphrase and an altered file
/// are one refusal, ``/KeepPorts/SealingError/Code/notAuthentic``, which says nothing about the key.
///
/// The file is a small JSON object, sorted keys:
///
/// ```json
/// {"kdf":"scrypt","keep":"recovery file","key":"…","n":131072,"nonce":"…","p":1,
///  "purpose":"chats","r":8,"salt":"…","version":1}
/// ```
///
/// Reading one checks everything before any work is done: an unknown version or
/// algorithm, a salt, nonce or sealed key of the wrong length, and scrypt parameters whose
/// work would pass ``Cost/memoryLimit`` are each refused with
/// ``/KeepPorts/SealingError/Code/malformed``, so a hostile file cannot make keep spend a gigabyte.
public struct RecoveryFile: Sendable, Equatable {
    /// The format this build writes, and the only one it reads.
    public static let version = 1

    /// scrypt's parameters: cost `n` (a power of two), block size `r`, parallelism `p`.
    public struct Cost: Sendable, Equatable {
        /// The CPU and memory cost, a power of two.
        public let n: UInt64
        /// The block size.
        public let r: UInt64
        /// The parallelism.
        public let p: UInt64

        /// The parameters `n`, `r`, `p` as given; ``RecoveryFile/wrap(_:purpose:passphrase:cost:)``
        /// and reading a file both check them.
        public init(n: UInt64, r: UInt64, p: UInt64) {
            self.n = n
            self.r = r
            self.p = p
        }

        /// What a file is written with: 2^17, 8, 1 (128 MiB of work space, a fraction of a
        /// second on a laptop, and costly to guess at).
        public static let standard = Cost(n: 1 << 17, r: 8, p: 1)

        /// The most work space any file may ask for: 256 MiB.
        public static let memoryLimit: UInt64 = 256 << 20

        /// The work space scrypt needs for these parameters.
        var memory: UInt64 { 128 &* r &* n &* p }

        /// Why these parameters are refused, or `nil`.
        var problem: String? {
            guard n >= 2, n & (n - 1) == 0, n <= 1 << 24 else { return "its cost is not a power of two in range" }
            guard (1...32).contains(r), (1...16).contains(p) else {
                return "its block size or parallelism is out of range"
            }
            guard memory <= Self.memoryLimit else {
                return "it asks for more than \(Self.memoryLimit >> 20) MiB of work"
            }
            return nil
        }
    }

    /// What the key is for, in a word (`"chats"`): bound into the seal, and checked by the
    /// reader before it puts the key anywhere.
    public let purpose: String
    /// The parameters the passphrase was stretched with.
    public let cost: Cost
    private let salt: [UInt8]
    private let nonce: [UInt8]
    /// The sealed key and its tag.
    private let sealed: [UInt8]

    private static let saltCount = 16
    private static let nonceCount = 12
    private static let tagCount = 16

    private init(purpose: String, cost: Cost, salt: [UInt8], nonce: [UInt8], sealed: [UInt8]) {
        self.purpose = purpose
        self.cost = cost
        self.salt = salt
        self.nonce = nonce
        self.sealed = sealed
    }

    /// `key` (a 32-byte data key) wrapped under `passphrase`, for `purpose`. Throws
    /// ``/KeepPorts/SealingError/Code/malformed`` for a key of another length, an empty passphrase or
    /// refused parameters.
    public static func wrap(
        _ key: [UInt8], purpose: String, passphrase: [UInt8], cost: Cost = .standard
    ) throws(SealingError) -> RecoveryFile {
        guard key.count == LibCrypto.keyCount else { throw malformed("the key is not \(LibCrypto.keyCount) bytes") }
        guard !passphrase.isEmpty else { throw malformed("the passphrase is empty") }
        if let problem = cost.problem { throw malformed("scrypt's parameters are refused: \(problem)") }
        var salt = [UInt8](repeating: 0, count: saltCount)
        var nonce = [UInt8](repeating: 0, count: nonceCount)
        try salt.withMutableBytes { buffer throws(SealingError) in try LibCrypto.fillRandom(buffer) }
        try nonce.withMutableBytes { buffer throws(SealingError) in try LibCrypto.fillRandom(buffer) }
        let file = RecoveryFile(purpose: purpose, cost: cost, salt: salt, nonce: nonce, sealed: [])
        var sealed = [UInt8](repeating: 0, count: key.count + tagCount)
        try file.withDerivedKey(passphrase) { derived throws(SealingError) in
            let aad = file.associatedData
            try key.withBytes { plaintext throws(SealingError) in
                try nonce.withBytes { nonce throws(SealingError) in
                    try aad.withBytes { aad throws(SealingError) in
                        try sealed.withMutableBytes { out throws(SealingError) in
                            try LibCrypto.sealAES256GCM(
                                try LibCrypto.Cipher(), key: derived, nonce: nonce, aad: aad, plaintext: plaintext,
                                ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[..<key.count]),
                                tag: UnsafeMutableRawBufferPointer(rebasing: out[key.count...]))
                        }
                    }
                }
            }
        }
        return RecoveryFile(purpose: purpose, cost: cost, salt: salt, nonce: nonce, sealed: sealed)
    }

    /// The key this file holds, opened with `passphrase`. A wrong passphrase, or any byte
    /// of the file altered, is ``/KeepPorts/SealingError/Code/notAuthentic`` and nothing more.
    public func unwrap(passphrase: [UInt8]) throws(SealingError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: sealed.count - Self.tagCount)
        try withDerivedKey(passphrase) { derived throws(SealingError) in
            let aad = associatedData
            try sealed.withBytes { sealed throws(SealingError) in
                try nonce.withBytes { nonce throws(SealingError) in
                    try aad.withBytes { aad throws(SealingError) in
                        try key.withMutableBytes { out throws(SealingError) in
                            try LibCrypto.openAES256GCM(
                                try LibCrypto.Cipher(), key: derived, nonce: nonce, aad: aad,
                                ciphertext: UnsafeRawBufferPointer(rebasing: sealed[..<out.count]),
                                tag: UnsafeRawBufferPointer(rebasing: sealed[out.count...]), plaintext: out)
                        }
                    }
                }
            }
        }
        return key
    }

    // MARK: - The file's text

    /// The file's contents: one JSON object and a newline.
    public var text: String {
        let object: [String: Any] = [
            "keep": "recovery file", "version": Self.version, "purpose": purpose, "kdf": "scrypt",
            "n": cost.n, "r": cost.r, "p": cost.p, "salt": Data(salt).base64EncodedString(),
            "nonce": Data(nonce).base64EncodedString(), "key": Data(sealed).base64EncodedString(),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The recovery file `text` holds; throws ``/KeepPorts/SealingError/Code/malformed``, saying what is
    /// wrong and never quoting it, for text that is not one this build reads.
    public init(text: String) throws(SealingError) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw Self.malformed("it is not a JSON object")
            }
            object = parsed
        } catch let error as SealingError {
            throw error
        } catch {
            throw Self.malformed("it is not JSON")
        }
        guard object["keep"] as? String == "recovery file" else {
            throw Self.malformed("it is not a keep recovery file")
        }
        guard let version = object["version"] as? Int else { throw Self.malformed("it has no version") }
        guard version == Self.version else {
            throw Self.malformed("it is in format \(version); this keep reads format \(Self.version)")
        }
        guard object["kdf"] as? String == "scrypt" else { throw Self.malformed("its key derivation is not scrypt") }
        guard let purpose = object["purpose"] as? String, !purpose.isEmpty else {
            throw Self.malformed("it does not say what the key is for")
        }
        func number(_ field: String) throws(SealingError) -> UInt64 {
            guard let value = object[field] as? Int, value > 0 else {
                throw Self.malformed("its \(field) is not a number")
            }
            return UInt64(value)
        }
        func bytes(_ field: String, count: Int) throws(SealingError) -> [UInt8] {
            guard let text = object[field] as? String, let data = Data(base64Encoded: text), data.count == count else {
                throw Self.malformed("its \(field) is not \(count) bytes of base64")
            }
            return Array(data)
        }
        let cost = Cost(n: try number("n"), r: try number("r"), p: try number("p"))
        if let problem = cost.problem { throw Self.malformed("scrypt's parameters are refused: \(problem)") }
        self.init(
            purpose: purpose, cost: cost, salt: try bytes("salt", count: Self.saltCount),
            nonce: try bytes("nonce", count: Self.nonceCount),
            sealed: try bytes("key", count: LibCrypto.keyCount + Self.tagCount))
    }

    // MARK: - Private

    /// Everything the file says besides the sealed key, bound into the seal: the format, its
    /// version, the purpose, scrypt's parameters and the salt, each length-prefixed.
    private var associatedData: [UInt8] {
        var out: [UInt8] = []
        func field(_ bytes: some Collection<UInt8>) {
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: bytes)
        }
        field("keep recovery file".utf8)
        for value in [UInt64(Self.version), cost.n, cost.r, cost.p] {
            withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
        }
        field(purpose.utf8)
        field(salt)
        return out
    }

    /// Runs `body` with the key scrypt derives from `passphrase`, wiped afterwards.
    private func withDerivedKey(
        _ passphrase: [UInt8], _ body: (UnsafeRawBufferPointer) throws(SealingError) -> Void
    ) throws(SealingError) {
        var derived = [UInt8](repeating: 0, count: LibCrypto.keyCount)
        defer { derived.withUnsafeMutableBytes { LibCrypto.cleanse($0) } }
        try passphrase.withBytes { passphrase throws(SealingError) in
            try salt.withBytes { salt throws(SealingError) in
                try derived.withMutableBytes { out throws(SealingError) in
                    try LibCrypto.scrypt(
                        passphrase: passphrase, salt: salt, n: cost.n, r: cost.r, p: cost.p,
                        maxMemory: Cost.memoryLimit + (1 << 20), into: out)
                }
            }
        }
        try derived.withBytes { key throws(SealingError) in try body(key) }
    }

    private static func malformed(_ detail: String) -> SealingError {
        SealingError(code: .malformed, operation: "recovery file", detail: detail)
    }
}
