import KeepPorts

#if canImport(CCrypto)
    /// The cipher of sealed values (``SealedStorage``): AES-256-GCM under a key HKDF-SHA256
    /// derives from the data key with a label of its own, each record bound to its place.
    ///
    /// A record is a line of text: ``prefix`` (the format and its version), then base64 of
    /// `nonce (12) ‖ ciphertext ‖ tag (16)`. The nonce is fresh from `RAND_bytes` for every
    /// record. The associated data binds, length-prefixed so no two bindings share bytes: a
    /// label, the format, the namespace, the id, and the byte offset at which the record
    /// starts in the stored value. So a record opens only under the same key, for the same
    /// key of the store, at the same place: a value swapped, renamed, moved to another
    /// namespace, a record moved or cut out of the middle, all fail to authenticate.
    ///
    /// The derived key lives in a buffer of its own (``DerivedKeys``), wiped when the last
    /// holder lets go; the data key it came from is not kept.
    final class ValueSealer: Sendable {
        /// What every record starts with: the format's name and version.
        static let prefix = Array("keep-sealed-v1:".utf8)
        /// The format, in the associated data.
        static let format: UInt8 = 1
        /// HKDF's info for the value key: a label no other key of keep's is derived with.
        private static let keyLabel = "keep sealed values v1: AES-256-GCM value key"
        /// The associated data's own label, so its bytes mean nothing to another protocol.
        private static let dataLabel = Array("keep sealed value".utf8)

        private let keys: DerivedKeys
        private let cipher: LibCrypto.Cipher
        /// ``prefix`` and the associated data's label, held by the value: a static is read
        /// through a lazy initialiser's check on every use, and these are read per record.
        private let recordPrefix = ValueSealer.prefix
        private let label = ValueSealer.dataLabel

        /// The sealer under `dataKey` (32 bytes, else `malformed`); no copy of it is kept.
        init(dataKey: [UInt8]) throws(SealingError) {
            guard dataKey.count == LibCrypto.keyCount else {
                throw SealingError(
                    code: .malformed, operation: "data key",
                    detail: "a data key is \(LibCrypto.keyCount) bytes, not \(dataKey.count)")
            }
            keys = try dataKey.withBytes { key throws(SealingError) in
                try DerivedKeys(dataKey: key, labels: [Self.keyLabel])
            }
            cipher = try LibCrypto.Cipher()
        }

        /// The record sealing `plaintext` as the one at `offset` in the value of `key`: its
        /// text, without a newline.
        func record(_ plaintext: [UInt8], for key: StorageKey, at offset: Int) throws(SealingError) -> String {
            let sealed = try LibCrypto.sealFramed(
                cipher, key: keys[0], aad: associatedData(key, offset: offset), plaintext: plaintext)
            var text = recordPrefix
            sealed.withUnsafeBytes { Base64.encode($0, into: &text) }
            return String(decoding: text, as: UTF8.self)
        }

        /// The plaintext of the record `line` (with its prefix, without its newline), appended
        /// to `out`, if it was sealed under this key as the one at `offset` in the value of
        /// `key`; a `notAuthentic` error otherwise, `malformed` for a line that is no record,
        /// and `out` as it was on any error. The record's decoded bytes are held in `scratch`,
        /// whose storage a caller opening many records keeps from one to the next.
        func open(
            _ line: UnsafeBufferPointer<UInt8>, for key: StorageKey, at offset: Int, appendingTo out: inout [UInt8],
            scratch sealed: inout [UInt8]
        ) throws(SealingError) {
            guard isRecord(line),
                Base64.decode(UnsafeBufferPointer(rebasing: line[recordPrefix.count...]), into: &sealed),
                sealed.count >= SealedPayload.nonceCount + SealedPayload.tagCount
            else {
                throw SealingError(code: .malformed, operation: "open", detail: "the line is not a sealed record")
            }
            try LibCrypto.openFramed(
                cipher, key: keys[0], aad: associatedData(key, offset: offset), sealed: sealed, appendingTo: &out)
        }

        /// The records `records` of the stored value `bytes` of `key` opened one after another,
        /// each into its place in `out` (``SealedRecords/Record/place``), under one context
        /// keyed once and one buffer for the decoded bytes, stopping at the first that does not
        /// open. Each record but the value's last is then cut to its finished lines, as the
        /// append after it cut them (its ``SealedRecords/Record/kept``), and what it keeps is
        /// checked to be UTF-8 while it is still in the cache: a value's pieces each start
        /// after a newline and end before one or at the value's end, so the joined value is
        /// text exactly when every piece is.
        func open(
            _ records: UnsafeMutableBufferPointer<SealedRecords.Record>, of bytes: UnsafeBufferPointer<UInt8>,
            for key: StorageKey, lastOfValue: Int, into out: UnsafeMutableRawBufferPointer
        ) -> SealedRecords.Outcome {
            var outcome = SealedRecords.Outcome()
            // The record being opened, for the answer when it does not.
            var number = records.first?.number ?? 0
            do throws(SealingError) {
                let opener = try LibCrypto.Opener(cipher, key: keys[0])
                // The associated data once; each record writes its own offset into the last 8 bytes.
                var aad = associatedData(key, offset: 0)
                var sealed: [UInt8] = []
                for index in records.indices {
                    let record = records[index]
                    number = record.number
                    let line = UnsafeBufferPointer(rebasing: bytes[(record.start + recordPrefix.count)..<record.end])
                    // A record's base64 decodes to `nonce ‖ ciphertext ‖ tag`, its place's length and 28.
                    let capacity = line.count / 4 * 3
                    if sealed.count < capacity { sealed = [UInt8](repeating: 0, count: capacity) }
                    let decoded = sealed.withUnsafeMutableBytes { Base64.decode(line, into: $0) }
                    guard let decoded, decoded == record.count + SealedPayload.nonceCount + SealedPayload.tagCount
                    else {
                        throw SealingError(
                            code: .malformed, operation: "open", detail: "the line is not a sealed record")
                    }
                    aad.withUnsafeMutableBytes { aad in
                        aad.storeBytes(of: UInt64(record.start).bigEndian, toByteOffset: aad.count - 8, as: UInt64.self)
                    }
                    let place = UnsafeMutableRawBufferPointer(
                        rebasing: out[record.place..<(record.place + record.count)])
                    try sealed.withBytes { (sealed) throws(SealingError) in
                        try aad.withBytes { (aad) throws(SealingError) in
                            try opener.open(UnsafeRawBufferPointer(rebasing: sealed[..<decoded]), aad: aad, into: place)
                        }
                    }
                    let plaintext = UnsafeBufferPointer(place.assumingMemoryBound(to: UInt8.self))
                    if record.number != lastOfValue { records[index].kept = ValueLines.finishedCount(plaintext) }
                    if !outcome.holdsNonText,
                        !Self.isText(UnsafeBufferPointer(rebasing: plaintext[..<records[index].kept]))
                    {
                        outcome.holdsNonText = true
                    }
                }
            } catch {
                outcome.refused = (number, error)
            }
            return outcome
        }

        /// Whether `bytes` are valid UTF-8, allocating nothing.
        private static func isText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            (try? UTF8Span(validating: bytes.span)) != nil
        }

        /// Whether `line` starts as a record does (``prefix``).
        func isRecord(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
            line.starts(with: recordPrefix)
        }

        /// Label, format, namespace, id and offset: each variable field with a 4-byte
        /// big-endian length, the offset a fixed 8 bytes.
        func associatedData(_ key: StorageKey, offset: Int) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(4 * 3 + 1 + 8 + label.count + key.namespace.rawValue.utf8.count + key.id.utf8.count)
            Self.appendField(label, to: &out)
            out.append(Self.format)
            Self.appendField(key.namespace.rawValue.utf8, to: &out)
            Self.appendField(key.id.utf8, to: &out)
            withUnsafeBytes(of: UInt64(offset).bigEndian) { out.append(contentsOf: $0) }
            return out
        }

        private static func appendField(_ field: some Collection<UInt8>, to out: inout [UInt8]) {
            withUnsafeBytes(of: UInt32(field.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: field)
        }
    }
#endif
