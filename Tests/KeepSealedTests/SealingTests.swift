import KeepPorts
import Testing

@testable import KeepSealed

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Sealing with AES-256-GCM under the data key")
struct SealingTests {
    static let dataKey = Array(UInt8(0)..<32)
    static let otherKey = Array(UInt8(100)..<132)

    static func binding(
        owner: KeptOwner = "engines", kind: String = "models", version: Int = 1, subject: SubjectHash? = nil
    ) -> SealBinding {
        SealBinding(owner: owner, kind: kind, shapeVersion: version, subject: subject)
    }

    @Test("a sealed payload opens to exactly what was sealed", arguments: [0, 1, 15, 16, 17, 1000, 65_536])
    func roundTrip(_ size: Int) throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let binding = Self.binding(subject: try sealer.subjectHash("https://models.example.test/v1"))
        let sealed = try sealer.seal(payload, for: binding)
        #expect(sealed.bytes.count == payload.count + 29)
        #expect(try sealer.open(sealed, for: binding) == payload)
        #expect(try sealer.open(SealedPayload(bytes: sealed.bytes), for: binding) == payload)
    }

    enum Region: String, CaseIterable, Sendable { case nonce, ciphertext, tag }

    @Test("tampering with any byte of the nonce, ciphertext or tag fails to open", arguments: Region.allCases)
    func tamperingFails(_ region: Region) throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let binding = Self.binding()
        let sealed = try sealer.seal(Array("a reading of forty bytes, more or less".utf8), for: binding)
        let count = sealed.bytes.count
        let indices: Range<Int> =
            switch region {
            case .nonce: 1..<13
            case .ciphertext: 13..<(count - 16)
            case .tag: (count - 16)..<count
            }
        for index in indices {
            for flip: UInt8 in [0x01, 0x80] {
                var bytes = sealed.bytes
                bytes[index] ^= flip
                do {
                    _ = try sealer.open(SealedPayload(bytes: bytes), for: binding)
                    Issue.record("opened with byte \(index) flipped by \(flip)")
                } catch {
                    #expect(error.code == .notAuthentic)
                }
            }
        }
    }

    struct Move: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let change: @Sendable (SealBinding, SubjectHash) -> SealBinding
    }

    static let moves: [Move] = [
        Move(testDescription: "another owner") { b, _ in
            binding(owner: "health", kind: b.kind, version: b.shapeVersion, subject: b.subject)
        },
        Move(testDescription: "another kind") { b, _ in
            binding(owner: b.owner, kind: "health", version: b.shapeVersion, subject: b.subject)
        },
        Move(testDescription: "another shape version") { b, _ in
            binding(owner: b.owner, kind: b.kind, version: b.shapeVersion + 1, subject: b.subject)
        },
        Move(testDescription: "another subject") { b, other in
            binding(owner: b.owner, kind: b.kind, version: b.shapeVersion, subject: other)
        },
        Move(testDescription: "no subject") { b, _ in
            binding(owner: b.owner, kind: b.kind, version: b.shapeVersion, subject: nil)
        },
        Move(testDescription: "fields shifted between owner and kind") { b, _ in
            binding(owner: "engine", kind: "s" + b.kind, version: b.shapeVersion, subject: b.subject)
        },
    ]

    @Test("a payload sealed for one row does not open for another", arguments: moves)
    func bindingIsEnforced(_ move: Move) throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let subject = try sealer.subjectHash("https://a.example.test")
        let other = try sealer.subjectHash("https://b.example.test")
        let binding = Self.binding(subject: subject)
        let sealed = try sealer.seal(Array("kept".utf8), for: binding)
        let moved = move.change(binding, other)
        #expect(moved != binding)
        do {
            _ = try sealer.open(sealed, for: moved)
            Issue.record("opened for \(move.testDescription)")
        } catch {
            #expect(error.code == .notAuthentic)
        }
        // The pair: an equal binding made afresh opens it.
        let same = Self.binding(subject: try sealer.subjectHash("https://a.example.test"))
        #expect(try sealer.open(sealed, for: same) == Array("kept".utf8))
    }

    @Test("a payload bound to its row's time opens only at that time: a re-dated row, or an older payload, is refused")
    func timeIsBound() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        func at(_ milliseconds: Int64?) -> SealBinding {
            SealBinding(
                owner: "engines", kind: "retention", shapeVersion: 1, subject: nil, millisecondsSince1970: milliseconds)
        }
        let older = try sealer.seal(Array("{\"days\":30}".utf8), for: at(1_000))
        let newer = try sealer.seal(Array("{\"days\":3}".utf8), for: at(2_000))
        #expect(try sealer.open(newer, for: at(2_000)) == Array("{\"days\":3}".utf8), "the pair: at its time, it opens")
        for (sealed, time) in [(newer, Int64(2_000 + 365 * 86_400_000)), (older, 2_000), (newer, 1_000)] {
            #expect {
                _ = try sealer.open(sealed, for: at(time))
            } throws: { ($0 as? SealingError)?.code == .notAuthentic }
        }
        #expect(throws: SealingError.self, "a time is not the absence of one") { try sealer.open(newer, for: at(nil)) }
    }

    /// Sealed by the build before times were bound (format 1): data key 0, 1, …, 31, for
    /// engines/models shape 1 about https://models.example.test/v1.
    static let sealedBeforeTimes = Hex.bytes(
        "018648ecc95083c030ad8b0f9c203dd4b37cffe3834b995c355ace1e576f4192f769bbcc594bb4ee640c433643f73795ba054f6bcafcdb3ff47b19"
    )

    @Test("a payload sealed before times were bound still opens, at any time; relabelled, a new one does not")
    func formerFormatOpens() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let subject = try sealer.subjectHash("https://models.example.test/v1")
        let old = try SealedPayload(bytes: Self.sealedBeforeTimes)
        for time in [nil, 0, 1_700_000_000_000] as [Int64?] {
            let binding = SealBinding(
                owner: "engines", kind: "models", shapeVersion: 1, subject: subject, millisecondsSince1970: time)
            #expect(try sealer.open(old, for: binding) == Array("sealed before times were bound".utf8))
        }
        // A new payload relabelled as format 1, to shed its time: its format byte is bound.
        let binding = SealBinding(
            owner: "engines", kind: "models", shapeVersion: 1, subject: subject, millisecondsSince1970: 5)
        let new = try sealer.seal(Array("kept".utf8), for: binding)
        #expect(new.bytes[0] == 2, "this build writes format 2")
        let relabelled = try SealedPayload(bytes: [1] + new.bytes.dropFirst())
        #expect {
            _ = try sealer.open(relabelled, for: binding)
        } throws: { ($0 as? SealingError)?.code == .notAuthentic }
    }

    @Test("the derived keys live in memory left out of core files, and locked out of swap where mlock is permitted")
    func derivedKeysOutOfCoreFiles() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        #expect(sealer.keyMemory.excludedFromCoreFiles, "MADV_DONTDUMP")
        // mlock is always permitted to root (elsewhere, within a limit that may be used up).
        if getuid() == 0 { #expect(sealer.keyMemory.locked, "mlock") }
    }

    @Test("nonces never repeat across many seals")
    func noncesNeverRepeat() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let binding = Self.binding()
        var nonces = Set<[UInt8]>()
        var payloads = Set<[UInt8]>()
        let count = 20_000
        for _ in 0..<count {
            let sealed = try sealer.seal([1, 2, 3], for: binding)
            nonces.insert(Array(sealed.bytes[1..<13]))
            payloads.insert(sealed.bytes)
        }
        #expect(nonces.count == count)
        #expect(payloads.count == count)
    }

    @Test("a payload sealed under one data key does not open under another")
    func wrongKeyFails() throws {
        let sealed = try AESGCMSealer(dataKey: Self.dataKey).seal(Array("kept".utf8), for: Self.binding())
        #expect {
            _ = try AESGCMSealer(dataKey: Self.otherKey).open(sealed, for: Self.binding())
        } throws: { ($0 as? SealingError)?.code == .notAuthentic }
        // The pair: a sealer made again from the same key opens it.
        #expect(try AESGCMSealer(dataKey: Self.dataKey).open(sealed, for: Self.binding()) == Array("kept".utf8))
    }

    @Test("the data key is never used directly: payloads and hashes use keys derived from it")
    func dataKeyIsNotUsedDirectly() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let binding = Self.binding()
        let sealed = try sealer.seal(Array("kept".utf8), for: binding)
        let aad = binding.associatedData(format: SealedPayload.format)

        #expect(throws: SealingError.self, "the data key itself opens a sealed payload") {
            _ = try Self.gcmOpen(key: Self.dataKey, sealed: sealed.bytes, aad: aad)
        }
        let sealingKey = try Self.hkdf(Self.dataKey, info: "keep sealed v1: AES-256-GCM payload key")
        #expect(try Self.gcmOpen(key: sealingKey, sealed: sealed.bytes, aad: aad) == Array("kept".utf8))

        let subject = "https://models.example.test/v1"
        let hash = try sealer.subjectHash(subject).bytes
        #expect(hash != (try Self.hmac(key: Self.dataKey, Array(subject.utf8))))
        #expect(hash != (try Self.hmac(key: sealingKey, Array(subject.utf8))))
        let hashingKey = try Self.hkdf(Self.dataKey, info: "keep sealed v1: HMAC-SHA256 subject key")
        #expect(hash == (try Self.hmac(key: hashingKey, Array(subject.utf8))))
        #expect(sealer.keyCheck == (try Self.hkdf(Self.dataKey, info: "keep sealed v1: data key check")))
    }

    @Test("a subject's hash is the same under one key and differs across subjects and keys")
    func subjectHashIsKeyed() throws {
        let sealer = try AESGCMSealer(dataKey: Self.dataKey)
        let again = try AESGCMSealer(dataKey: Self.dataKey)
        let other = try AESGCMSealer(dataKey: Self.otherKey)
        let url = "https://models.example.test/v1"
        #expect(try sealer.subjectHash(url) == again.subjectHash(url))
        #expect(try sealer.subjectHash(url) != sealer.subjectHash(url + "/"))
        #expect(try sealer.subjectHash(url) != other.subjectHash(url))
        #expect(try sealer.subjectHash("").bytes.count == 32)
        #expect(!(try sealer.subjectHash(url).description.contains("example")))
    }

    @Test("a data key of any length but 32 bytes is refused", arguments: [0, 1, 16, 31, 33, 64])
    func wrongLengthKeyIsRefused(_ length: Int) {
        #expect {
            _ = try AESGCMSealer(dataKey: Array(repeating: 7, count: length))
        } throws: { ($0 as? SealingError)?.code == .malformed }
    }

    @Test(
        "stored bytes too short or of an unknown format are refused as malformed",
        arguments: [[], [1], Array(repeating: 1, count: 28), [3] + Array(repeating: 0, count: 40)] as [[UInt8]])
    func malformedSealedBytesAreRefused(_ bytes: [UInt8]) {
        #expect {
            _ = try SealedPayload(bytes: bytes)
        } throws: { ($0 as? SealingError)?.code == .malformed }
    }

    @Test("a subject hash read back from a row must be 32 bytes", arguments: [0, 31, 33])
    func malformedSubjectHashIsRefused(_ length: Int) throws {
        #expect(throws: SealingError.self) { try SubjectHash(bytes: Array(repeating: 1, count: length)) }
        #expect(try SubjectHash(bytes: Array(repeating: 1, count: 32)).bytes.count == 32)
    }

    // MARK: - Raw libcrypto, for checking the derivation from outside the sealer

    static func hkdf(_ key: [UInt8], info: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        try key.withUnsafeBytes { key in
            try Array(info.utf8).withUnsafeBytes { info in
                try out.withUnsafeMutableBytes {
                    try LibCrypto.hkdfSHA256(
                        key: key, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: info, into: $0)
                }
            }
        }
        return out
    }

    static func hmac(key: [UInt8], _ message: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        try key.withUnsafeBytes { key in
            try message.withUnsafeBytes { message in
                try out.withUnsafeMutableBytes { try LibCrypto.hmacSHA256(key: key, message: message, into: $0) }
            }
        }
        return out
    }

    static func gcmOpen(key: [UInt8], sealed: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        let count = sealed.count - 29
        var out = [UInt8](repeating: 0, count: count)
        try key.withUnsafeBytes { key in
            try sealed.withUnsafeBytes { all in
                try aad.withUnsafeBytes { aad in
                    try out.withUnsafeMutableBytes {
                        try LibCrypto.openAES256GCM(
                            LibCrypto.Cipher(), key: key, nonce: UnsafeRawBufferPointer(rebasing: all[1..<13]),
                            aad: aad,
                            ciphertext: UnsafeRawBufferPointer(rebasing: all[13..<(13 + count)]),
                            tag: UnsafeRawBufferPointer(rebasing: all[(13 + count)...]), plaintext: $0)
                    }
                }
            }
        }
        return out
    }
}
