import Foundation
import KeepCore
import KeepPorts
import Synchronization

/// Settings for the core's own tests: the shapes the registry uses, including the
/// specification's range-checked number and one secret.
enum TestSettings {
    static let engineId = SettingDef(
        key: "engineId", defaultValue: .string("echo"), label: "Engine", help: "Which engine answers.",
        section: "Engine", validator: .oneOf(["echo", "remote"]))
    static let baseUrl = SettingDef(
        key: "baseUrl", defaultValue: .string("http://127.0.0.1:8080/v1"), label: "Server",
        help: "Where the remote engine is.", section: "Engine", validator: .httpURL)
    static let someNumberSetting = SettingDef(
        key: "someNumberSetting", defaultValue: .number(0.7), label: "Some number", help: "A number from 0 to 2.",
        section: "Engine", validator: .number(in: 0...2))
    static let streaming = SettingDef(
        key: "streaming", defaultValue: .bool(true), label: "Streaming", help: "A flag with no validator.",
        section: "Engine")
    static let apiKey = SettingDef(
        key: "apiKey", defaultValue: .string(""), label: "API key", help: "A secret.", section: "Keys",
        secretRef: SecretRef(.openai))

    static let defs = [engineId, baseUrl, someNumberSetting, streaming, apiKey]
}

extension ChatSession {
    /// ``ChatSession/recordTurn(question:answer:engine:model:server:usage:system:)``,
    /// answering `nil` instead of throwing when the write failed: the tests' shorthand.
    @discardableResult
    func record(question: String, answer: String, engine: String) async -> RecordedTurn? {
        try? await recordTurn(question: question, answer: answer, engine: engine)
    }
}

/// A settings store over `storage` with the test settings.
func makeSettings(
    _ storage: any StoragePort, secrets: any SecretsPort = MemorySecrets(),
    now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_750_000_000) }
) -> SettingsStore {
    SettingsStore(storage: storage, secrets: secrets, defs: TestSettings.defs, now: now)
}

/// What subscribers heard, in order.
final class Heard: Sendable {
    private let keys = Mutex<[String]>([])

    func record(_ key: String) { keys.withLock { $0.append(key) } }

    var all: [String] { keys.withLock { $0 } }
}

/// A clock that moves one second each time it is read, so times differ and ids sort.
final class SteppingClock: Sendable {
    private let seconds: Mutex<Double>

    init(start: Double = 1_750_000_000) {
        seconds = Mutex(start)
    }

    var now: @Sendable () -> Date {
        { [self] in
            Date(
                timeIntervalSince1970: seconds.withLock { current in
                    current += 1
                    return current
                })
        }
    }
}

/// A value several tasks (or callbacks) can share in a test.
final class Mutexed<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
