import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

/// The id encoding over random ids of any Unicode scalars: bounded and seeded here, longer
/// with `KEEP_FUZZ_SCALE` (see ``FuzzPlan``).
@Suite("The id encoding, fuzzed")
struct IdEncodingFuzzTests {
    @Test("random ids round-trip through their file names, never share one, and never leave their directory")
    func randomIdsRoundTripAndStayInTheirDirectory() throws {
        let plan = FuzzPlan(iterations: 100_000, seed: 0x1d_e4c0_d1e6)
        var generator = plan.generator()
        var idForName: [String: String] = [:]
        var problems: [String] = []
        var refused = 0
        for iteration in 0..<plan.iterations {
            let id = Self.randomId(&generator)
            let name: String
            do {
                name = try IdEncoding.fileName(for: StorageKey(.chats, id), operation: "write")
            } catch {
                refused += 1
                if error.code != .invalidId
                    || !(id.isEmpty || IdEncodingTests.encodedLength(id) > 255 || Self.isUnstable(id))
                {
                    problems.append("iteration \(iteration): \(StorageError.quoted(id)) was refused: \(error)")
                }
                continue
            }
            if let problem = Self.problem(with: name, for: id) {
                problems.append("iteration \(iteration): \(Self.scalars(id)) → \(name): \(problem)")
            }
            // Injective: two ids share a name only when Swift calls them equal (one key).
            if let other = idForName.updateValue(id, forKey: name), other != id {
                problems.append(
                    "iteration \(iteration): \(StorageError.quoted(other)) and \(StorageError.quoted(id)) share \(name)"
                )
            }
            if problems.count >= 20 { break }
        }
        print(
            "fuzz · id encoding: \(plan.iterations) random ids (\(plan)), \(refused) refused, \(idForName.count) names")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        // The generator reaches both ends: ids that fit and ids too long for one name.
        #expect(refused > 0 && idForName.count > plan.iterations / 2, "\(plan)")
    }

    @Test("a sample of random ids is stored, listed and read back through the real store, inside its namespace")
    func aSampleOfRandomIdsThroughTheStore() async throws {
        let plan = FuzzPlan(iterations: 250, seed: 0x5a_3b1e)
        var generator = plan.generator()
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        var written: [String: String] = [:]
        while written.count < plan.iterations {
            let id = Self.randomId(&generator)
            guard !id.isEmpty, IdEncodingTests.encodedLength(id) <= 255, !Self.isUnstable(id) else { continue }
            let value = "value \(written.count) of \(StorageError.quoted(id))"
            try await store.write(StorageKey(.drafts, id), value)
            written[id] = value
        }
        #expect(Set(try await store.listIds(.drafts)) == Set(written.keys), "\(plan)")
        for (id, value) in written {
            #expect(try await store.read(StorageKey(.drafts, id)) == value, "\(plan): \(StorageError.quoted(id))")
        }
        // Every file is directly in the namespace's directory; nothing was made anywhere else.
        let tree = RawDisk.tree(directory.path)
        #expect(tree.filter { !$0.hasPrefix("store/drafts/") } == ["store", "store/drafts"], "\(plan)")
        #expect(tree.count == written.count + 2, "\(plan)")
    }

    @Test(
        "an astral character before a combining mark keeps a file of its own (found by this fuzzer)",
        arguments: [
            ("\u{12245}\u{338}", "\u{2247}"), ("\u{80059}\u{304}", "\u{232}"),
            ("x\u{12245}\u{338}\u{360}", "x\u{2247}\u{360}"),
        ])
    func anAstralCharacterBeforeACombiningMarkKeepsItsOwnFile(_ id: String, _ lookalike: String) async throws {
        // Foundation's NFC on Linux composes U+12245 U+0338 as if it were U+2245 U+0338 (into
        // U+2247): two ids Swift calls different would share a file.
        #expect(id != lookalike, "the case itself is wrong")
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, id), "the astral one")
        try await store.write(StorageKey(.chats, lookalike), "the lookalike")
        #expect(try await store.read(StorageKey(.chats, id)) == "the astral one")
        #expect(Set(try await store.listIds(.chats)) == [id, lookalike])
        #expect(RawDisk.names(directory.appending("store/chats")).count == 2)
    }

    @Test("an id whose normal form is not stable is refused by name, never stored unlisted (found by this fuzzer)")
    func anIdWhoseNormalFormIsNotStableIsRefused() async throws {
        // The standard library's NFC leaves U+0329 before U+0F71 U+0F74 (the parts of U+0F75),
        // though U+0329 sorts after them: the name would decode to an id `==` calls different.
        let unstable = "a\u{329}\u{F75}"
        #expect(Self.isUnstable(unstable), "the case itself is wrong")
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let error = await #expect(throws: StorageError.self) {
            try await store.write(StorageKey(.chats, unstable), "v")
        }
        #expect(error?.code == .invalidId)
        #expect(error?.description.contains("normal form") == true)
        #expect(RawDisk.tree(directory.path) == [])
        // The pair: the same letters in their stable order are stored and listed.
        let stable = "a\u{F71}\u{F74}\u{329}"
        try await store.write(StorageKey(.chats, stable), "v")
        #expect(try await store.listIds(.chats) == [stable])
    }

    /// Whether `id`'s NFC, read back as a string, is an id Swift calls different from it.
    static func isUnstable(_ id: String) -> Bool {
        String(decoding: id._nfcCodeUnits, as: UTF8.self) != id
    }

    /// Why `name` is not a safe, canonical file name for `id`, or nil.
    static func problem(with name: String, for id: String) -> String? {
        if !name.utf8.allSatisfy(IdEncodingTests.isNameByte) { return "a byte outside a-z 0-9 - _ ~" }
        if name.isEmpty || name == "." || name == ".." || name.hasPrefix(".") { return "a name that is not a file's" }
        if name.utf8.count > IdEncoding.maximumNameLength { return "longer than 255 bytes" }
        // Joined to a directory, it is one component, directly inside it.
        let path = ("/base/namespace/" + name as NSString).standardizingPath
        if (path as NSString).deletingLastPathComponent != "/base/namespace" { return "it leaves its directory" }
        if IdEncoding.id(fromFileName: name) != id { return "it does not decode back to the id" }
        return nil
    }

    /// A random id: mostly short, sometimes long, now and then far too long; of scalars
    /// from every range (ASCII with its controls, NUL, `/`, `.`, uppercase; Latin; combining
    /// marks; the rest of the BMP; the astral planes), and of the pieces that escapes and
    /// normalisation trip over.
    static func randomId(_ generator: inout SeededGenerator) -> String {
        let length: Int
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<2: length = 0
        case 2..<80: length = Int.random(in: 1...16, using: &generator)
        case 80..<97: length = Int.random(in: 17...120, using: &generator)
        default: length = Int.random(in: 121...400, using: &generator)
        }
        var id = ""
        for _ in 0..<length {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4: id.unicodeScalars.append(scalar(in: 0x00...0x7F, &generator))
            case 4: id += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            case 5: id.unicodeScalars.append(scalar(in: 0x80...0x24F, &generator))
            case 6: id.unicodeScalars.append(scalar(in: 0x300...0x36F, &generator))
            case 7, 8: id.unicodeScalars.append(scalar(in: 0x370...0xFFFF, &generator))
            default: id.unicodeScalars.append(scalar(in: 0x1_0000...0x10_FFFF, &generator))
            }
        }
        return id
    }

    /// `id` as its scalars' code points, `U+0041 U+0301`: unambiguous where quoting is not.
    static func scalars(_ id: String) -> String {
        id.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    static let pieces = ["/", ".", "..", "../", "~", "~2e", "\u{0}", "%2f", "\\", "A", "Z", ".keep-tmp-", "e\u{301}"]

    /// A random scalar in `range`; a surrogate (no scalar) becomes U+FFFD.
    static func scalar(in range: ClosedRange<UInt32>, _ generator: inout SeededGenerator) -> Unicode.Scalar {
        Unicode.Scalar(UInt32.random(in: range, using: &generator)) ?? "\u{FFFD}"
    }
}
