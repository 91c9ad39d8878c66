import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

@testable import KeepSealed

/// The sealing decorator over the in-memory and the file store: the whole storage and append
/// contracts, the sealing contract, the record format, and the values of a store part-way
/// between sealed and plain.
@Suite("Sealed values over any store")
struct SealedStorageTests {
    static let dataKey = Array(UInt8(0)..<32)
    static let otherKey = Array(UInt8(200)..<232)
    static let sealed: Set<Namespace> = [.chats, .drafts]

    /// A store's two kinds: memory, and a file store in a directory of the test's own.
    enum Inner: String, CaseIterable, CustomTestStringConvertible {
        case memory, fileStore
        var testDescription: String { self == .memory ? "over MemoryStorage" : "over FileStore" }

        func make(_ directory: TemporaryDirectory) throws -> any StoragePort {
            switch self {
            case .memory: MemoryStorage()
            case .fileStore: try FileStore(root: directory.appending(UUID().uuidString))
            }
        }
    }

    @Test(
        "the sealing store honours the whole storage contract and the append contract, every namespace sealed",
        arguments: Inner.allCases)
    func honoursTheStorageAndAppendContracts(_ inner: Inner) async throws {
        let directory = try TemporaryDirectory()
        for rule in StorageContract.cases + AppendContract.cases {
            try await rule.check {
                try SealedStorage(try inner.make(directory), dataKey: Self.dataKey, sealing: Set(Namespace.allCases))
            }
        }
    }

    @Test("the sealing store honours the sealing contract", arguments: Inner.allCases)
    func honoursTheSealingContract(_ inner: Inner) async throws {
        let directory = try TemporaryDirectory()
        for rule in SealingContract.cases {
            try await rule.check {
                let base = try inner.make(directory)
                return SealedStoreUnderTest(
                    store: try SealedStorage(base, dataKey: Self.dataKey, sealing: Self.sealed), inner: base,
                    sealed: [.chats, .drafts],
                    underAnotherKey: { try SealedStorage(base, dataKey: Self.otherKey, sealing: Self.sealed) })
            }
        }
    }

    @Test("a value is stored as one line per record: the format's prefix, then base64, and a newline")
    func theRecordFormat() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let key = StorageKey(.chats, "c1")
        try await store.write(key, "a head\nwith two lines\n")
        #expect(try await store.append(key) { _ in "a turn" })
        let raw = try #require(try await inner.read(key))
        let lines = raw.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "two records, each ending its line")
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        for line in lines.dropLast() {
            #expect(line.hasPrefix("keep-sealed-v1:"))
            #expect(line.dropFirst("keep-sealed-v1:".count).allSatisfy(base64.contains))
        }
        // nonce, ciphertext (the text with its newline) and tag: 12 + 7 + 16 bytes.
        let expected = "keep-sealed-v1:".count + 48
        #expect(lines[1].count == expected)
    }

    @Test("a record is AES-256-GCM under HKDF of the data key with its own label, bound to namespace, id and offset")
    func aRecordOpensAsDocumented() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let key = StorageKey(.drafts, "Draft 1")
        try await store.write(key, "first\n")
        #expect(try await store.append(key) { _ in "second" })
        let raw = try #require(try await inner.read(key))
        let lines = raw.split(separator: "\n").map(String.init)
        // The key, derived here from the label alone; the data bound, laid out as documented.
        var valueKey = [UInt8](repeating: 0, count: 32)
        try Self.dataKey.withUnsafeBytes { data in
            try Array("keep sealed values v1: AES-256-GCM value key".utf8).withUnsafeBytes { info in
                try valueKey.withUnsafeMutableBytes { out in
                    try LibCrypto.hkdfSHA256(
                        key: data, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: info, into: out)
                }
            }
        }
        let cipher = try LibCrypto.Cipher()
        var offset = 0
        for (line, plaintext) in zip(lines, ["first\n", "second\n"]) {
            let sealed = try #require(Data(base64Encoded: String(line.dropFirst("keep-sealed-v1:".count))))
            let bytes = Array(sealed)
            var aad: [UInt8] = []
            for field in [Array("keep sealed value".utf8)] {
                aad += Self.bigEndian(UInt32(field.count)) + field
            }
            aad.append(1)
            for field in [Array("drafts".utf8), Array("Draft 1".utf8)] {
                aad += Self.bigEndian(UInt32(field.count)) + field
            }
            aad += Self.bigEndian(UInt64(offset))
            var opened = [UInt8](repeating: 0, count: bytes.count - 28)
            try valueKey.withUnsafeBytes { key in
                try bytes.withUnsafeBytes { all in
                    try aad.withUnsafeBytes { aad in
                        try opened.withUnsafeMutableBytes { out in
                            try LibCrypto.openAES256GCM(
                                cipher, key: key, nonce: UnsafeRawBufferPointer(rebasing: all[..<12]), aad: aad,
                                ciphertext: UnsafeRawBufferPointer(rebasing: all[12..<(all.count - 16)]),
                                tag: UnsafeRawBufferPointer(rebasing: all[(all.count - 16)...]), plaintext: out)
                        }
                    }
                }
            }
            #expect(opened == Array(plaintext.utf8))
            offset += line.utf8.count + 1
        }
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    @Test("namespaces that are not sealed pass through unchanged: settings stay plain JSON")
    func unsealedNamespacesPassThrough() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let settings = StorageKey(.settings, "settings")
        try await store.write(settings, #"{"engineId":"echo"}"#)
        #expect(try await inner.read(settings) == #"{"engineId":"echo"}"#)
        #expect(try await store.reading(settings) == SealedReading(value: #"{"engineId":"echo"}"#, state: .plain))
        #expect(try await store.append(StorageKey(.cache, "log")) { _ in "x" } == false)
    }

    @Test("a plain, a sealed and a part-way value each say what they are, and seal and unseal rewrite one value")
    func partWayValues() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let plain = StorageKey(.chats, "plain")
        let partly = StorageKey(.chats, "partly")
        let sealed = StorageKey(.chats, "sealed")
        try await inner.write(plain, "old\n")
        try await inner.write(partly, "old\n")
        #expect(try await store.append(partly) { _ in "new" })
        try await store.write(sealed, "new\n")
        #expect(try await store.reading(plain) == SealedReading(value: "old\n", state: .plain))
        #expect(try await store.reading(partly) == SealedReading(value: "old\nnew\n", state: .partlySealed))
        #expect(try await store.reading(sealed) == SealedReading(value: "new\n", state: .sealed))
        #expect(try await store.reading(StorageKey(.chats, "absent")) == nil)

        // Sealing: every value that is not sealed whole, rewritten once; the others untouched.
        let sealedPlain = try await store.seal(plain)
        let sealedPartly = try await store.seal(partly)
        let sealedAgain = try await store.seal(sealed)
        let sealedAbsent = try await store.seal(StorageKey(.chats, "absent"))
        #expect(sealedPlain && sealedPartly && !sealedAgain && !sealedAbsent)
        for key in [plain, partly, sealed] {
            #expect(try await store.reading(key)?.state == .sealed)
            #expect(!(try await inner.read(key) ?? "").contains("old"))
        }
        #expect(try await store.read(partly) == "old\nnew\n")
        // And back: plain text in the store beneath, read the same through the sealer.
        #expect(try await store.unseal(partly))
        #expect(try await inner.read(partly) == "old\nnew\n")
        let unsealedAgain = try await store.unseal(partly)
        #expect(!unsealedAgain)
        await #expect(throws: StorageError.self) { try await store.seal(StorageKey(.settings, "s")) }
    }

    @Test("an unfinished last record, torn by a crash mid-append, is ignored as an unfinished line is")
    func anUnfinishedRecordIsIgnored() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let key = StorageKey(.chats, "c1")
        try await store.write(key, "head\n")
        #expect(try await store.append(key) { _ in "one" })
        let raw = try #require(try await inner.read(key))
        for tail in ["keep-sealed-v1:AAAA", "keep-sealed-v1:AAAA\u{0}\u{0}\u{0}\n", "\u{0}\u{0}"] {
            try await inner.write(key, raw + tail)
            #expect(try await store.read(key) == "head\none\n")
            #expect(try await store.append(key) { _ in "two" })
            #expect(try await store.read(key) == "head\none\ntwo\n")
        }
    }

    @Test("a data key that is not 32 bytes is refused, and no refusal names a key or a value")
    func keysNeverShow() async throws {
        #expect(throws: SealingError.self) {
            try SealedStorage(MemoryStorage(), dataKey: [1, 2, 3], sealing: [.chats])
        }
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let key = StorageKey(.chats, "c1")
        try await store.write(key, "secret words\n")
        let other = try SealedStorage(inner, dataKey: Self.otherKey, sealing: Self.sealed)
        let error = await #expect(throws: StorageError.self) { try await other.read(key) }
        let text = error?.description ?? ""
        #expect(error?.code == .corrupt && text.contains(key.description))
        for secret in [Hex.text(Self.dataKey), Hex.text(Self.otherKey), "secret words"] {
            #expect(!text.contains(secret), "\(text)")
        }
    }

    @Test("stamps are the inner store's, and change when a sealed value does")
    func stampsAreTheInnerStores() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: Self.sealed)
        let key = StorageKey(.chats, "c1")
        try await store.write(key, "head\n")
        let before = try #require(try await store.stamp(key))
        #expect(try await store.stamps(.chats) == (await inner.stamps(.chats)))
        #expect(try await store.append(key) { _ in "one" })
        #expect(try await store.stamp(key) != before)
        let unstamped = try SealedStorage(BrokenAppendStorage(.omitsNewline), dataKey: Self.dataKey, sealing: [.chats])
        await #expect(throws: StorageError.self) { try await unstamped.stamps(.chats) }
    }
}
