import KeepPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(CCrypto)
    /// A ``/KeepPorts/StoragePort`` that seals the values of the namespaces it is told to, over any store:
    /// what the store beneath keeps of them is sealed records, never their text.
    ///
    /// In a sealed namespace a value is one or more lines, each a sealed record
    /// (`ValueSealer`: AES-256-GCM under a key derived from the data key, bound to the
    /// namespace, the id and the record's byte offset in the stored value). `write` seals
    /// the value's lines in records of whole lines, up to ``recordBytes`` of them each (a
    /// longer line a record of its own), each bound to its own offset; `append` seals the line
    /// (and its newline) as a record of its own and hands it to the inner store's own
    /// `append`, so a turn stays one append of the turn. `read` opens every record and joins
    /// what they hold, as the lines of a plain value join (a record's unfinished last line is
    /// cut where another record follows it, as an append would have cut it); an unfinished
    /// last record, which a crash mid-append leaves, is ignored, as an unfinished line is. A
    /// value of many records is opened in runs of them side by side (`SealedRecords`); what it
    /// reads as, and what refuses it, is the same as one record at a time. (A value that an
    /// earlier version wrote as one record reads as it did, in one run.) Any record that does
    /// not open, and any
    /// plain line after a record, makes the value ``/KeepPorts/StorageError/Code/corrupt``, naming the key
    /// and never quoting a byte: a value swapped with another, renamed, moved to another
    /// namespace, a record moved, cut out of the middle, or sealed under another key, is
    /// refused, never opened as something else. (A cut at the very end, the last records
    /// dropped, reads as the value before those appends, as a power cut before them would.)
    ///
    /// A value that is plain in a sealed namespace (written before sealing began, or by
    /// ``unseal(_:)``) reads as it is; appends to it are sealed after its plain lines.
    /// ``reading(_:)`` says which a value is (``SealedReading/State``), and ``seal(_:)`` and
    /// ``unseal(_:)`` rewrite one value, atomically, for a store that is part-way between the
    /// two. Namespaces that are not sealed pass through unchanged.
    ///
    /// `line`'s offset, for an append in a sealed namespace, is the offset in the stored
    /// (sealed) value, which the record is bound to. Stamps are the inner store's, when it
    /// keeps them. The data key is not kept (the caller wipes its copy); the key derived from
    /// it is wiped when the last copy of this store goes away; no error names a key.
    public struct SealedStorage: StampedStorage {
        /// The store beneath, which holds the sealed records.
        public let inner: any StoragePort
        /// The namespaces whose values are sealed.
        public let sealedNamespaces: Set<Namespace>
        /// The most plaintext bytes of whole lines one record of a `write` holds (a line that
        /// is longer is a record of its own): small enough that a long chat's value is many
        /// records, opened side by side, and large enough that a record's own cost (its
        /// nonce, tag and prefix, a cipher's start) is lost in its bytes.
        public static let recordBytes = 64 * 1024
        private let sealer: ValueSealer

        /// A store sealing the values of `namespaces` in `inner` under `dataKey` (32 bytes;
        /// else ``/KeepPorts/SealingError/Code/malformed``).
        public init(_ inner: any StoragePort, dataKey: [UInt8], sealing namespaces: Set<Namespace>) throws(SealingError)
        {
            self.inner = inner
            sealedNamespaces = namespaces
            sealer = try ValueSealer(dataKey: dataKey)
        }

        // MARK: - The port

        /// The value, opened when its namespace is sealed; see the type's rules.
        public func read(_ key: StorageKey) async throws(StorageError) -> String? {
            try await reading(key)?.value
        }

        /// The bytes of the value ``read(_:)`` answers: the inner store's bytes, opened straight
        /// into the array when its namespace is sealed, no string made of them.
        public func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
            guard let stored = try await inner.readUTF8(key) else { return nil }
            guard sealedNamespaces.contains(key.namespace) else { return stored }
            return try open(stored, key)
        }

        /// Stores `value`, sealed when its namespace is sealed (its lines in records of up to
        /// ``recordBytes`` bytes of whole lines), replacing any earlier value as atomically as
        /// the inner store's `write` does.
        public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
            guard sealedNamespaces.contains(key.namespace) else { return try await inner.write(key, value) }
            try await inner.write(key, try records(value, for: key))
        }

        /// Adds a line, sealed as a record of its own (the line and its newline) when the
        /// namespace is sealed, through the inner store's `append`: `false`, writing nothing,
        /// when there is no value.
        @discardableResult
        public func append(
            _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
        ) async throws(StorageError) -> Bool {
            guard sealedNamespaces.contains(key.namespace) else { return try await inner.append(key, line) }
            let sealer = sealer
            let failure = SealingFailure()
            let appended: Bool
            do throws(StorageError) {
                appended = try await inner.append(key) { offset in
                    let text = line(offset)
                    do throws(StorageError) {
                        try ValueLines.check(text, for: key)
                        return try Self.record(sealer, Array((text + "\n").utf8), for: key, at: offset)
                    } catch {
                        // Returned as a line the inner store refuses: nothing is written, and the
                        // real reason is thrown below.
                        failure.error = error
                        return "\n"
                    }
                }
            } catch {
                throw failure.error ?? error
            }
            return appended
        }

        /// Removes the value from the inner store, sealed or not.
        public func remove(_ key: StorageKey) async throws(StorageError) {
            try await inner.remove(key)
        }

        /// The inner store's ids: a sealed value's id is its key's, in clear.
        public func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
            try await inner.listIds(namespace)
        }

        /// Clears the namespace in the inner store.
        public func clear(_ namespace: Namespace) async throws(StorageError) {
            try await inner.clear(namespace)
        }

        /// The inner store's stamps of `namespace` (of the sealed bytes: they change when the
        /// value does).
        public func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
            guard let stamped = inner as? any StampedStorage else {
                throw .noStamps("stamps", path: namespace.rawValue)
            }
            return try await stamped.stamps(namespace)
        }

        /// The inner store's stamp of `key`.
        public func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
            guard let stamped = inner as? any StampedStorage else { throw .noStamps("stamp", path: key.description) }
            return try await stamped.stamp(key)
        }

        // MARK: - Part-way stores

        /// The value of `key` and whether it is sealed, or `nil` when there is none: for a
        /// store part-way through being sealed or made plain. A value outside the sealed
        /// namespaces is always ``SealedReading/State/plain``.
        public func reading(_ key: StorageKey) async throws(StorageError) -> SealedReading? {
            guard let stored = try await inner.read(key) else { return nil }
            guard sealedNamespaces.contains(key.namespace) else { return SealedReading(value: stored, state: .plain) }
            return try open(stored, key)
        }

        /// Rewrites the value of `key` sealed whole, in one atomic write, when it is not
        /// (plain, or plain lines with sealed records after them); answers whether it did.
        /// `false` when there is no value, or it is sealed already. The caller holds the
        /// store's lock, so no append lands between the read and the write.
        @discardableResult
        public func seal(_ key: StorageKey) async throws(StorageError) -> Bool {
            guard sealedNamespaces.contains(key.namespace) else {
                throw StorageError(
                    code: .unavailable, operation: "seal", path: key.description,
                    reason: "its namespace is not one this store seals")
            }
            guard let reading = try await reading(key), reading.state != .sealed else { return false }
            try await write(key, reading.value)
            return true
        }

        /// Rewrites the value of `key` as plain text, in one atomic write of the inner store,
        /// when any of it is sealed; answers whether it did. `false` when there is no value,
        /// or it is plain already. The caller holds the store's lock.
        @discardableResult
        public func unseal(_ key: StorageKey) async throws(StorageError) -> Bool {
            guard let reading = try await reading(key), reading.state != .plain else { return false }
            try await inner.write(key, reading.value)
            return true
        }

        // MARK: - Records

        /// `stored` (the inner store's value of `key`, in a sealed namespace), opened.
        private func open(_ stored: String, _ key: StorageKey) throws(StorageError) -> SealedReading {
            var stored = stored
            let result = stored.withUTF8 { bytes -> Result<SealedReading?, StorageError> in
                do throws(StorageError) {
                    return .success(
                        try open(bytes, key) { capacity, fill in
                            String(unsafeUninitializedCapacity: capacity) { fill(UnsafeMutableRawBufferPointer($0)) }
                        }.map { SealedReading(value: $0.value, state: $0.state) })
                } catch {
                    return .failure(error)
                }
            }
            // Plain all through: the value as it is, unfinished last line and all.
            return try result.get() ?? SealedReading(value: stored, state: .plain)
        }

        /// The bytes of `stored` (the inner store's, in a sealed namespace) opened, as ``open(_:_:)``
        /// opens its string: straight into the array, no string made.
        private func open(_ stored: [UInt8], _ key: StorageKey) throws(StorageError) -> [UInt8] {
            let opened = try stored.withUnsafeBufferPointer { bytes throws(StorageError) in
                try open(bytes, key) { capacity, fill in
                    [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                        count = fill(UnsafeMutableRawBufferPointer(buffer))
                    }
                }
            }
            return opened?.value ?? stored
        }

        /// The value `bytes` holds opened into what `make` makes (it is handed the room the
        /// opened value needs and a fill that writes it there and answers its length), and
        /// whether it is sealed or partly; `nil` when no line is a record (plain all through).
        private func open<Value>(
            _ bytes: UnsafeBufferPointer<UInt8>, _ key: StorageKey,
            making make: (_ capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> Value
        ) throws(StorageError) -> (value: Value, state: SealedReading.State)? {
            // Plain lines come first, if any, up to where the first record starts; each record's
            // place after them is known from its length (see `SealedRecords`).
            var records = SealedRecords(scanning: bytes, sealer: sealer)
            guard let plainEnd = records.plainEnd else { return nil }
            var outcome = SealedRecords.Outcome()
            // Opened straight into the value's own storage: no buffer of its own to copy from.
            // (A string checks its bytes once more as it is made; the records' check, in the
            // runs, is what refuses a value that is not text, which a string would repair.)
            let value = make(records.capacity) { out in
                if plainEnd > 0, let base = out.baseAddress, let plain = bytes.baseAddress {
                    base.copyMemory(from: plain, byteCount: plainEnd)
                }
                outcome = records.open(bytes, with: sealer, for: key, into: out)
                return outcome.refused == nil && !outcome.holdsNonText ? records.compact(out, after: plainEnd) : 0
            }
            if let refused = outcome.refused {
                throw Self.refused(
                    key,
                    "record \(refused.number) did not open: it was altered, moved, or sealed under another key, for "
                        + "another value or another place (\(refused.error.code))")
            }
            if let stray = records.strayLine {
                throw Self.refused(key, "line \(stray) follows a sealed record but is not one")
            }
            guard !outcome.holdsNonText else { throw Self.refused(key, "what its records hold is not text") }
            return (value, plainEnd == 0 ? .sealed : .partlySealed)
        }

        /// `value` as ``write(_:_:)`` stores it: its lines in runs of whole lines, each run of up
        /// to ``recordBytes`` bytes (a longer line a run of its own, the unfinished last line, if
        /// any, in the last), each run a record bound to the offset it starts at; the empty
        /// value one record of nothing.
        private func records(_ value: String, for key: StorageKey) throws(StorageError) -> String {
            let bytes = Array(value.utf8)
            var stored = ""
            var start = 0
            repeat {
                let end = bytes.withUnsafeBufferPointer { Self.runEnd(in: $0, from: start) }
                stored += try record(Array(bytes[start..<end]), for: key, at: stored.utf8.count)
                stored += "\n"
                start = end
            } while start < bytes.count
            return stored
        }

        /// Where the run of whole lines from `start` ends: after the last newline within
        /// ``recordBytes`` of it; when there is none there, after the first newline past them
        /// (the line whole); or at the end of `bytes`.
        static func runEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            let limit = start + recordBytes
            guard limit < bytes.count, let base = bytes.baseAddress else { return bytes.count }
            var index = limit
            while index > start {
                index -= 1
                if bytes[index] == ValueLines.newline { return index + 1 }
            }
            guard let found = memchr(base + limit, Int32(ValueLines.newline), bytes.count - limit) else {
                return bytes.count
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
        }

        private func record(_ plaintext: [UInt8], for key: StorageKey, at offset: Int) throws(StorageError) -> String {
            try Self.record(sealer, plaintext, for: key, at: offset)
        }

        private static func record(
            _ sealer: ValueSealer, _ plaintext: [UInt8], for key: StorageKey, at offset: Int
        ) throws(StorageError) -> String {
            do throws(SealingError) {
                return try sealer.record(plaintext, for: key, at: offset)
            } catch {
                throw StorageError(code: .io, operation: "seal", path: key.description, reason: error.description)
            }
        }

        /// The error of a sealed value that is refused: this one value's problem.
        private static func refused(_ key: StorageKey, _ reason: String) -> StorageError {
            StorageError(code: .corrupt, operation: "open sealed value", path: key.description, reason: reason)
        }
    }

    /// The error a sealing `append`'s line could not be made with, carried out of the
    /// inner store's closure.
    private final class SealingFailure: Sendable {
        private let state = Mutex<StorageError?>(nil)

        var error: StorageError? {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }
#endif
