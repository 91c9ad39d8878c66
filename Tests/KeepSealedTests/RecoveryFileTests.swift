import Foundation
import KeepPorts
import Testing

@testable import KeepSealed

@Suite("The recovery file: a data key wrapped under a passphrase")
struct RecoveryFileTests {
    /// Cheap parameters, so the tests spend no second per file; the standard ones are
    /// tried once below.
    static let cheap = RecoveryFile.Cost(n: 1 << 10, r: 8, p: 1)
    static let key = (0..<32).map { UInt8($0 * 7 & 0xFF) }
    static let passphrase = Array("correct horse battery staple".utf8)

    @Test("a recovery file read back opens under its passphrase and gives the key back")
    func roundTrip() throws {
        let file = try RecoveryFile.wrap(Self.key, purpose: "chats", passphrase: Self.passphrase, cost: Self.cheap)
        let read = try RecoveryFile(text: file.text)
        #expect(read == file && read.purpose == "chats" && read.cost == Self.cheap)
        #expect(try read.unwrap(passphrase: Self.passphrase) == Self.key)
    }

    @Test("the standard parameters are what a file is written with, and they open")
    func standard() throws {
        let file = try RecoveryFile.wrap(Self.key, purpose: "chats", passphrase: Self.passphrase)
        #expect(file.cost == .standard)
        #expect(try RecoveryFile(text: file.text).unwrap(passphrase: Self.passphrase) == Self.key)
    }

    @Test("a wrong passphrase is refused without a hint of the key")
    func wrongPassphrase() throws {
        let file = try RecoveryFile.wrap(Self.key, purpose: "chats", passphrase: Self.passphrase, cost: Self.cheap)
        for wrong in ["correct horse battery stapl", "Correct horse battery staple", "x"] {
            let error = #expect(throws: SealingError.self) { try file.unwrap(passphrase: Array(wrong.utf8)) }
            #expect(error?.code == .notAuthentic)
            let said = "\(error.map { "\($0)" } ?? "")"
            #expect(!said.contains(Data(Self.key).base64EncodedString()) && !said.contains(wrong))
        }
    }

    @Test("a file whose purpose, parameters, salt, nonce or sealed key were altered opens under no passphrase")
    func alteredFile() throws {
        let file = try RecoveryFile.wrap(Self.key, purpose: "chats", passphrase: Self.passphrase, cost: Self.cheap)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(file.text.utf8)) as? [String: Any])
        func flipped(_ base64: Any?) -> String {
            var bytes = [UInt8](Data(base64Encoded: base64 as? String ?? "") ?? Data())
            bytes[bytes.count / 2] ^= 0x01
            return Data(bytes).base64EncodedString()
        }
        let alterations: [(String, Any)] = [
            ("purpose", "kept-data"), ("n", 2048), ("r", 4), ("salt", flipped(object["salt"])),
            ("nonce", flipped(object["nonce"])), ("key", flipped(object["key"])),
        ]
        for (field, value) in alterations {
            var altered = object
            altered[field] = value
            let text = String(decoding: try JSONSerialization.data(withJSONObject: altered), as: UTF8.self)
            let read = try RecoveryFile(text: text)
            #expect(throws: SealingError.self, "\(field)") { try read.unwrap(passphrase: Self.passphrase) }
        }
    }

    @Test(
        "a file that is not one this build reads is refused before any work, saying why",
        arguments: [
            ("not json", "it is not JSON"),
            (#"{"keep":"something else"}"#, "it is not a keep recovery file"),
            (#"{"keep":"recovery file","version":2}"#, "format 2"),
            (
                #"{"keep":"recovery file","version":1,"kdf":"scrypt","purpose":"chats","n":1073741824,"r":8,"p":1}"#,
                "parameters are refused"
            ),
            (#"{"keep":"recovery file","version":1,"kdf":"pbkdf2","purpose":"chats"}"#, "not scrypt"),
        ])
    func refused(text: String, reason: String) {
        let error = #expect(throws: SealingError.self) { try RecoveryFile(text: text) }
        #expect(error?.code == .malformed)
        #expect("\(error.map { "\($0)" } ?? "")".contains(reason))
    }

    @Test("a key of another length, or an empty passphrase, is never wrapped")
    func refusedToWrap() {
        #expect(throws: SealingError.self) {
            try RecoveryFile.wrap([1, 2, 3], purpose: "chats", passphrase: Self.passphrase, cost: Self.cheap)
        }
        #expect(throws: SealingError.self) {
            try RecoveryFile.wrap(Self.key, purpose: "chats", passphrase: [], cost: Self.cheap)
        }
    }
}
