import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

@testable import KeepCore

/// The settings loader over random and damaged files: bounded and seeded here, longer with
/// `KEEP_FUZZ_SCALE` (see ``FuzzPlan``).
@Suite("The settings loader, fuzzed")
struct SettingsLoaderFuzzTests {
    @Test("the settings loader, fed random and damaged files, never crashes, never writes, and a change loses nothing")
    func theLoaderNeverCrashesNorWrites() async throws {
        let plan = FuzzPlan(iterations: 3_000, seed: 0x5e_771)
        var generator = plan.generator()
        var problems: [String] = []
        var outcomes: [String: Int] = [:]
        for iteration in 0..<plan.iterations {
            let text = Self.randomFile(&generator)
            let found = try await Self.check(text)
            outcomes[found.outcome, default: 0] += 1
            problems += found.problems.map { "iteration \(iteration) (\(text.debugDescription.prefix(120))): \($0)" }
            if problems.count >= 10 { break }
        }
        print("fuzz · settings loader: \(plan.iterations) files (\(plan)), \(outcomes.sorted { $0.key < $1.key })")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        // The inputs reached every outcome: read whole, read with refusals, unreadable.
        #expect(outcomes["fine"] ?? 0 > 0 && outcomes["refusals"] ?? 0 > 0 && outcomes["unreadable"] ?? 0 > 0)
    }

    @Test("a settings file of damaged bytes on disk is never written over, by a load or by a change")
    func damagedBytesOnDiskAreNeverWrittenOver() async throws {
        let plan = FuzzPlan(iterations: 150, seed: 0x5e_b17e)
        var generator = plan.generator()
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let path = directory.appending("store/settings/settings")
        var problems: [String] = []
        var notText = 0
        for iteration in 0..<plan.iterations {
            let original = Array(#"{"engineId": "remote", "someNumberSetting": 1.5, "mine": [1, {"x": null}]}"#.utf8)
            let bytes = TextDamage.damage(bytes: original, &generator)
            try FileManager.default.createDirectory(
                atPath: directory.appending("store/settings"), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for id in try await store.listIds(.settings) where id != "settings" {
                try await store.remove(StorageKey(.settings, id))
            }
            let settings = makeSettings(store)
            try await settings.load()
            if FileManager.default.contents(atPath: path).map(Array.init) != bytes {
                problems.append("iteration \(iteration): loading changed the file")
            }
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            notText += 1
            // Bytes that are not text cannot be kept aside: a change is refused, the file kept.
            let error = await #expect(throws: SettingsError.self) {
                try await settings.set("engineId", .string("echo"))
            }
            if error?.code != .unreadableFile {
                problems.append("iteration \(iteration): \(String(describing: error))")
            }
            if FileManager.default.contents(atPath: path).map(Array.init) != bytes {
                problems.append("iteration \(iteration): a refused change wrote over the file")
            }
        }
        print("fuzz · settings bytes on disk: \(plan.iterations) files (\(plan)), \(notText) not text")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        #expect(notText > 0, "no damaged file was anything but text")
    }

    @Test(
        "a field nested hundreds deep is read or refused, and a change is still written (found by this fuzzer)",
        arguments: [100, 400, 511, 600, 5_000])
    func aDeeplyNestedFieldStillLetsAChangeBeWritten(depth: Int) async throws {
        // The decoder reads 512 levels (the file's object and 511 below it) and the encoder
        // writes fewer, so a file past SettingsStore's depth limit is refused whole (kept
        // aside on the first change) rather than loaded and then impossible to write back.
        let text =
            #"{"engineId": "remote", "mine": "# + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + "}"
        let found = try await Self.check(text)
        #expect(found.problems.isEmpty, "\(found.problems)")
    }

    /// Loads `text` and checks what the store answers, that nothing was written, and that a
    /// change afterwards keeps the user's file: its unknown keys, or the whole unreadable text.
    static func check(_ text: String) async throws -> (outcome: String, problems: [String]) {
        let storage = MemoryStorage()
        try await storage.write(SettingsStore.key, text)
        let settings = makeSettings(storage)
        var problems: [String] = []
        do {
            try await settings.load()
        } catch {
            return ("threw", ["load threw \(error)"])
        }
        if try await storage.read(SettingsStore.key) != text { problems.append("load changed the file") }
        if try await storage.listIds(.settings) != ["settings"] { problems.append("load wrote a file") }
        for def in TestSettings.defs where !def.isSecret {
            guard let value = settings.value(def.key) else {
                problems.append("\(def.key) has no value")
                continue
            }
            if (try? def.accept(value)) == nil { problems.append("\(def.key) holds a value its rule refuses") }
        }
        if settings.value(TestSettings.apiKey.key) != nil { problems.append("the secret has a value from the file") }
        let health = settings.health
        let outcome: String
        switch health {
        case .fine: outcome = settings.refusals.isEmpty ? "fine" : "refusals"
        case .unreadable: outcome = "unreadable"
        case .refused: outcome = "refused"
        case .keptAside: outcome = "kept aside"
        }

        // A change is still possible, and the file it writes keeps what the user had.
        do {
            try await settings.set("engineId", .string("remote"))
        } catch {
            return (outcome, problems + ["a change after the load failed: \(error)"])
        }
        let written = try await storage.read(SettingsStore.key) ?? ""
        let object = (try? JSONSerialization.jsonObject(with: Data(written.utf8))) as? [String: Any]
        if object?["engineId"] as? String != "remote" {
            problems.append("the change wrote \(written.debugDescription)")
        }
        if object?[TestSettings.apiKey.key] != nil { problems.append("the secret's key was written to the file") }
        if case .unreadable = health {
            var keptAside = false
            for id in try await storage.listIds(.settings) where id.hasPrefix("settings.corrupt-") {
                // Whole, but for a secret-flagged field's value.
                let secrets = Set(TestSettings.defs.filter(\.isSecret).map(\.key))
                if try await storage.read(StorageKey(.settings, id)) == SecretFields.removing(secrets, from: text) {
                    keptAside = true
                }
            }
            if !keptAside { problems.append("the unreadable file was not kept aside whole before the change") }
        } else if let original = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] {
            let known = Set(TestSettings.defs.map(\.key))
            let lost = Set(original.keys).subtracting(known).subtracting(object?.keys.map { $0 } ?? [])
            if !lost.isEmpty { problems.append("the change lost the user's keys \(lost.sorted())") }
        }
        return (outcome, problems)
    }

    // MARK: - Inputs

    /// A settings file: a random JSON object (two in five), one damaged (two in five), or
    /// text that is hardly JSON at all. (Fields nested hundreds deep, slow to parse, have a
    /// test of their own.)
    static func randomFile(_ generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<5, using: &generator) {
        case 0, 1: return json(object(&generator, depth: 0))
        case 2, 3: return TextDamage.damage(json(object(&generator, depth: 0)), &generator)
        default:
            var text = ""
            for _ in 0..<Int.random(in: 0..<40, using: &generator) {
                if Bool.random(using: &generator) {
                    text += TextDamage.strays.randomElement(using: &generator) ?? ""
                } else {
                    text.unicodeScalars.append(TextDamage.anyScalar(&generator))
                }
            }
            return text
        }
    }

    /// A JSON value made of Foundation's types, keys drawn from the settings and beyond.
    static func object(_ generator: inout SeededGenerator, depth: Int) -> [String: Any] {
        var object: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            let key =
                Bool.random(using: &generator)
                ? TestSettings.defs.map(\.key).randomElement(using: &generator) ?? ""
                : ["", "mine", "__proto__", "engineid", "é", "a\u{0}b", "🙂", " engineId"].randomElement(
                    using: &generator)
                    ?? ""
            object[key] = value(&generator, depth: depth + 1)
        }
        return object
    }

    static func value(_ generator: inout SeededGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &generator) {
        case 0:
            return ["echo", "remote", "Echo", "", " 1.25 ", "http://127.0.0.1:9/v1", "ftp://x", "1", "true", "sk-x"]
                .randomElement(using: &generator) ?? ""
        case 1: return [0, 0.7, 2, 2.0000001, -0.1, 1e300, -1, 3].randomElement(using: &generator) ?? 0
        case 2: return Bool.random(using: &generator)
        case 3: return NSNull()
        case 4:
            return String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...8, using: &generator)).map { _ in TextDamage.anyScalar(&generator) }))
        case 5: return Int.random(in: Int.min...Int.max, using: &generator)
        case 6: return (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(&generator, depth: depth + 1) }
        default: return object(&generator, depth: depth)
        }
    }

    static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
