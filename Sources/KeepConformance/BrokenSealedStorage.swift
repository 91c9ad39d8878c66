import KeepPorts

/// A sealing store broken one flaw at a time, to prove the sealing contract catches each way
/// a sealer can go wrong, over any inner store.
///
/// It seals with a toy cipher (a keystream from ``SeededGenerator`` and a keyed FNV-1a tag):
/// it protects nothing and is no cryptography, only the shape a sealer has, so a flaw in
/// what it binds shows as a real sealer's would. Without its flaw it keeps every rule of
/// the contract; with one, it fails exactly the cases ``SealingFlaw/breaks`` names.
public struct BrokenSealedStorage: StoragePort {
    private let flaw: SealingFlaw
    private let inner: any StoragePort
    private let key: [UInt8]
    private let sealed: Set<Namespace>
    private static let prefix = "toy-sealed:"

    /// A store sealing `namespaces` of `inner` under `key`, with `flaw`.
    public init(_ flaw: SealingFlaw, over inner: any StoragePort, key: [UInt8], sealing namespaces: Set<Namespace>) {
        self.flaw = flaw
        self.inner = inner
        self.key = key
        self.sealed = namespaces
    }

    /// The value, its records opened (plain lines before them kept), unless the flaw says
    /// otherwise.
    public func read(_ key: StorageKey) async throws(StorageError) -> String? {
        guard let stored = try await inner.read(key) else { return nil }
        guard sealed.contains(key.namespace) else { return stored }
        let finished = String(ValueLines.finished(stored))
        var plain = ""
        var opened: [String] = []
        var offset = 0
        for line in finished.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            defer { offset += line.utf8.count + 1 }
            if line.hasPrefix(Self.prefix) {
                guard let text = open(String(line), key, at: offset) else { throw refusal(key) }
                opened.append(text)
            } else if opened.isEmpty || flaw == .acceptsPlainAfterRecords {
                if flaw == .refusesPlainValues { throw refusal(key) }
                plain += line + "\n"
            } else {
                throw refusal(key)
            }
        }
        if opened.isEmpty { return stored }
        return plain + opened.dropLast().map { String(ValueLines.finished($0)) }.joined() + (opened.last ?? "")
    }

    /// Stores `value`, sealed as one record in a sealed namespace.
    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        guard sealed.contains(key.namespace) else { return try await inner.write(key, value) }
        try await inner.write(key, seal(value, key, at: 0) + "\n")
    }

    /// Appends the line, sealed as a record of its own in a sealed namespace, through the
    /// inner store's append.
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        guard sealed.contains(key.namespace) else { return try await inner.append(key, line) }
        return try await inner.append(key) { offset in
            let text = line(offset)
            // A line that is not one is handed on as it is, for the inner store to refuse.
            return text.contains("\n") || text.contains("\u{0}") ? text : seal(text + "\n", key, at: offset)
        }
    }

    /// Removes the value from the inner store.
    public func remove(_ key: StorageKey) async throws(StorageError) { try await inner.remove(key) }

    /// The inner store's ids.
    public func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try await inner.listIds(namespace)
    }

    /// Clears the namespace in the inner store.
    public func clear(_ namespace: Namespace) async throws(StorageError) { try await inner.clear(namespace) }

    // MARK: - The toy cipher

    /// What a record is bound to, as this flaw leaves it.
    private func binding(_ key: StorageKey, at offset: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        if flaw != .forgetsNamespace {
            bytes += Array("\(key.namespace.rawValue.utf8.count):".utf8) + key.namespace.rawValue.utf8
        }
        if flaw != .forgetsId { bytes += Array("\(key.id.utf8.count):".utf8) + key.id.utf8 }
        if flaw != .forgetsOffset { bytes += Array("@\(offset)".utf8) }
        return bytes
    }

    private var sealingKey: [UInt8] { flaw == .ignoresKey ? [0] : key }

    private func seal(_ text: String, _ key: StorageKey, at offset: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = generator.next() as UInt64
        let plaintext = Array(text.utf8)
        if flaw == .writesPlaintext {
            // "Sealed" as a tag beside the text itself, its newline escaped.
            let tag = Self.tag(sealingKey, binding(key, at: offset), plaintext, 0)
            return Self.prefix + "p" + Self.hex(tag) + ":" + text.replacingNewlines
        }
        let ciphertext = Self.keystream(sealingKey, nonce, plaintext)
        let tag = Self.tag(sealingKey, binding(key, at: offset), ciphertext, nonce)
        return Self.prefix + Self.hex(nonce) + Self.hex(tag) + ciphertext.map(Self.hex).joined()
    }

    private func open(_ record: String, _ key: StorageKey, at offset: Int) -> String? {
        let body = Array(record.utf8.dropFirst(Self.prefix.utf8.count))
        if body.first == UInt8(ascii: "p") {
            guard let colon = body.firstIndex(of: UInt8(ascii: ":")), let tag = Self.unhex(body[1..<colon]) else {
                return nil
            }
            let text = String(decoding: body[(colon + 1)...], as: UTF8.self).restoringNewlines
            let expected = Self.tag(sealingKey, binding(key, at: offset), Array(text.utf8), 0)
            return tag == Self.bytes(expected) ? text : nil
        }
        guard body.count >= 32, let head = Self.unhex(body[0..<32]), let ciphertext = Self.unhex(body[32...]) else {
            return nil
        }
        let nonce = head[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let tag = head[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard tag == Self.tag(sealingKey, binding(key, at: offset), ciphertext, nonce) else { return nil }
        return String(decoding: Self.keystream(sealingKey, nonce, ciphertext), as: UTF8.self)
    }

    private func refusal(_ key: StorageKey) -> StorageError {
        StorageError(
            code: .corrupt, operation: "open sealed value", path: key.description, reason: "a record did not open")
    }

    private static func keystream(_ key: [UInt8], _ nonce: UInt64, _ bytes: [UInt8]) -> [UInt8] {
        var generator = SeededGenerator(seed: fnv(key) ^ nonce)
        var stream: UInt64 = 0
        return bytes.enumerated().map { index, byte in
            if index % 8 == 0 { stream = generator.next() }
            return byte ^ UInt8(truncatingIfNeeded: stream >> (8 * UInt64(index % 8)))
        }
    }

    private static func tag(_ key: [UInt8], _ binding: [UInt8], _ bytes: [UInt8], _ nonce: UInt64) -> UInt64 {
        fnv(key + binding + bytes + Self.bytes(nonce))
    }

    private static func fnv(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    private static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    private static func hex(_ value: UInt64) -> String { bytes(value).map(hex).joined() }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func unhex(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard let high = digit(text[index]), let low = digit(text[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// The ways ``BrokenSealedStorage`` can be broken.
public enum SealingFlaw: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The id is not bound: values of one namespace open as each other.
    case forgetsId = "sealing_forgets_id"
    /// The namespace is not bound: a value opens in another namespace.
    case forgetsNamespace = "sealing_forgets_namespace"
    /// The record's offset is not bound: records can be moved or cut out.
    case forgetsOffset = "sealing_forgets_offset"
    /// Every value is sealed under one fixed key, whatever key it was given.
    case ignoresKey = "sealing_ignores_key"
    /// The text is written beside its tag, in plain.
    case writesPlaintext = "sealing_writes_plaintext"
    /// A plain line after a sealed record is read as part of the value.
    case acceptsPlainAfterRecords = "sealing_accepts_plain_after_records"
    /// A plain value in a sealed namespace cannot be read.
    case refusesPlainValues = "sealing_refuses_plain_values"

    /// The names of the contract cases this flaw must fail, and it must pass every other (a
    /// sealer that writes text fails each case that looks for text where a sealed line is).
    public var breaks: [String] {
        switch self {
        case .forgetsId: [SealingContract.aSwappedValueIsRefused.name, SealingContract.aRenamedValueIsRefused.name]
        case .forgetsNamespace: [SealingContract.aValueMovedToAnotherNamespaceIsRefused.name]
        case .forgetsOffset: [SealingContract.aMovedOrCutRecordIsRefused.name]
        case .ignoresKey: [SealingContract.aValueUnderAnotherKeyIsRefused.name]
        case .writesPlaintext:
            [
                SealingContract.noPlaintextReachesTheInnerStore.name,
                SealingContract.aPlainValueReadsAndTakesAppends.name,
            ]
        case .acceptsPlainAfterRecords: [SealingContract.aPlainLineAfterARecordIsRefused.name]
        case .refusesPlainValues: [SealingContract.aPlainValueReadsAndTakesAppends.name]
        }
    }

    public var description: String { rawValue }
}

extension String {
    /// The text with `\` and newlines escaped, so it fits on one line.
    fileprivate var replacingNewlines: String {
        replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    /// The text ``replacingNewlines`` escaped, restored.
    fileprivate var restoringNewlines: String {
        var out = ""
        var escaped = false
        for character in self {
            if escaped {
                out.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
