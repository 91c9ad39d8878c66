import KeepPorts
import Testing

@testable import KeepSealed

/// The libcrypto seam against published vectors: if any of these fail, nothing sealed
/// by this build can be trusted.
@Suite("Known answers from the published test vectors")
struct KnownAnswerTests {
    // MARK: - AES-256-GCM

    struct GCMVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key, nonce, aad, plaintext, ciphertext, tag: [UInt8]
        var testDescription: String { name }
    }

    /// McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", appendix B: the
    /// test cases with 256-bit keys and 96-bit IVs (13 to 16; 16 carries associated data).
    static let gcmVectors: [GCMVector] = {
        let key = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
        let nonce = "cafebabefacedbaddecaf888"
        let plaintext =
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
        let ciphertext =
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
            + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
        return [
            GCMVector(
                name: "GCM test case 13: zero key, no plaintext", key: Hex.bytes(String(repeating: "00", count: 32)),
                nonce: Hex.bytes(String(repeating: "00", count: 12)), aad: [], plaintext: [], ciphertext: [],
                tag: Hex.bytes("530f8afbc74536b9a963b4f1c4cb738b")),
            GCMVector(
                name: "GCM test case 14: zero key, one zero block",
                key: Hex.bytes(String(repeating: "00", count: 32)),
                nonce: Hex.bytes(String(repeating: "00", count: 12)), aad: [],
                plaintext: Hex.bytes(String(repeating: "00", count: 16)),
                ciphertext: Hex.bytes("cea7403d4d606b6e074ec5d3baf39d18"),
                tag: Hex.bytes("d0d1c8a799996bf0265b98b5d48ab919")),
            GCMVector(
                name: "GCM test case 15: four blocks", key: Hex.bytes(key), nonce: Hex.bytes(nonce), aad: [],
                plaintext: Hex.bytes(plaintext), ciphertext: Hex.bytes(ciphertext),
                tag: Hex.bytes("b094dac5d93471bdec1a502270e3cc6c")),
            GCMVector(
                name: "GCM test case 16: partial block with associated data", key: Hex.bytes(key),
                nonce: Hex.bytes(nonce), aad: Hex.bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
                plaintext: Array(Hex.bytes(plaintext).prefix(60)), ciphertext: Array(Hex.bytes(ciphertext).prefix(60)),
                tag: Hex.bytes("76fc6ece0f4e1768cddf8853bb2d551b")),
        ]
    }()

    @Test("AES-256-GCM seals a published vector to its published ciphertext and tag", arguments: gcmVectors)
    func gcmSealsToTheVector(_ vector: GCMVector) throws {
        var ciphertext = [UInt8](repeating: 0, count: vector.plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        try vector.key.withUnsafeBytes { key in
            try vector.nonce.withUnsafeBytes { nonce in
                try vector.aad.withUnsafeBytes { aad in
                    try vector.plaintext.withUnsafeBytes { plaintext in
                        try ciphertext.withUnsafeMutableBytes { out in
                            try tag.withUnsafeMutableBytes { tagOut in
                                try LibCrypto.sealAES256GCM(
                                    LibCrypto.Cipher(), key: key, nonce: nonce, aad: aad, plaintext: plaintext,
                                    ciphertext: out,
                                    tag: tagOut)
                            }
                        }
                    }
                }
            }
        }
        #expect(Hex.text(ciphertext) == Hex.text(vector.ciphertext))
        #expect(Hex.text(tag) == Hex.text(vector.tag))
    }

    @Test("AES-256-GCM opens a published vector, and refuses it with one tag bit flipped", arguments: gcmVectors)
    func gcmOpensTheVector(_ vector: GCMVector) throws {
        #expect(try Self.gcmOpen(vector, tag: vector.tag) == vector.plaintext)
        var flipped = vector.tag
        flipped[flipped.count - 1] ^= 0x01
        #expect {
            try Self.gcmOpen(vector, tag: flipped)
        } throws: { ($0 as? SealingError)?.code == .notAuthentic }
    }

    static func gcmOpen(_ vector: GCMVector, tag: [UInt8]) throws -> [UInt8] {
        var plaintext = [UInt8](repeating: 0, count: vector.ciphertext.count)
        try vector.key.withUnsafeBytes { key in
            try vector.nonce.withUnsafeBytes { nonce in
                try vector.aad.withUnsafeBytes { aad in
                    try vector.ciphertext.withUnsafeBytes { ciphertext in
                        try tag.withUnsafeBytes { tag in
                            try plaintext.withUnsafeMutableBytes { out in
                                try LibCrypto.openAES256GCM(
                                    LibCrypto.Cipher(), key: key, nonce: nonce, aad: aad, ciphertext: ciphertext,
                                    tag: tag, plaintext: out)
                            }
                        }
                    }
                }
            }
        }
        return plaintext
    }

    // MARK: - HMAC-SHA256

    struct HMACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key, message: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    /// RFC 4231, section 4: HMAC-SHA-256 of test cases 1 to 4, 6 and 7 (case 5 is a
    /// truncated output, which Keep never uses).
    static let hmacVectors: [HMACVector] = [
        HMACVector(
            name: "RFC 4231 test case 1", key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        HMACVector(
            name: "RFC 4231 test case 2: a key shorter than the output", key: Array("Jefe".utf8),
            message: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        HMACVector(
            name: "RFC 4231 test case 3", key: Array(repeating: 0xaa, count: 20),
            message: Array(repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        HMACVector(
            name: "RFC 4231 test case 4", key: Array(1...25), message: Array(repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        HMACVector(
            name: "RFC 4231 test case 6: a key larger than a block", key: Array(repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        HMACVector(
            name: "RFC 4231 test case 7: key and data larger than a block", key: Array(repeating: 0xaa, count: 131),
            message: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("HMAC-SHA256 gives the published output", arguments: hmacVectors)
    func hmacMatchesTheVector(_ vector: HMACVector) throws {
        var mac = [UInt8](repeating: 0, count: 32)
        try vector.key.withUnsafeBytes { key in
            try vector.message.withUnsafeBytes { message in
                try mac.withUnsafeMutableBytes { try LibCrypto.hmacSHA256(key: key, message: message, into: $0) }
            }
        }
        #expect(Hex.text(mac) == vector.mac)
    }

    // MARK: - HKDF-SHA256

    struct HKDFVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key, salt, info: [UInt8]
        let output: String
        var testDescription: String { name }
    }

    /// RFC 5869, appendix A: the three SHA-256 test cases.
    static let hkdfVectors: [HKDFVector] = [
        HKDFVector(
            name: "RFC 5869 test case 1", key: Array(repeating: 0x0b, count: 22), salt: Array(0...0x0c),
            info: Array(0xf0...0xf9),
            output: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        HKDFVector(
            name: "RFC 5869 test case 2: longer inputs and output", key: Array(0...0x4f), salt: Array(0x60...0xaf),
            info: Array(0xb0...0xff),
            output: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        HKDFVector(
            name: "RFC 5869 test case 3: no salt, no info", key: Array(repeating: 0x0b, count: 22), salt: [], info: [],
            output: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test("HKDF-SHA256 gives the published output", arguments: hkdfVectors)
    func hkdfMatchesTheVector(_ vector: HKDFVector) throws {
        var output = [UInt8](repeating: 0, count: vector.output.utf8.count / 2)
        try vector.key.withUnsafeBytes { key in
            try vector.salt.withUnsafeBytes { salt in
                try vector.info.withUnsafeBytes { info in
                    try output.withUnsafeMutableBytes {
                        try LibCrypto.hkdfSHA256(key: key, salt: salt, info: info, into: $0)
                    }
                }
            }
        }
        #expect(Hex.text(output) == vector.output)
    }
}
