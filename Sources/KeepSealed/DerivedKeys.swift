import KeepPorts

#if canImport(CCrypto)
    /// Keys HKDF-SHA256 derives from a data key, one for each label, in one buffer of their
    /// own that is wiped (`OPENSSL_cleanse`) and freed when the last holder goes away: the one
    /// place a sealer's keys live.
    ///
    /// The data key itself is never kept: it is read once, to derive. Nothing here has a
    /// description, so no key can reach a message.
    ///
    /// `@unchecked Sendable`: the buffer is written once, in `init`, and only read after.
    final class DerivedKeys: @unchecked Sendable {
        /// The keys, `LibCrypto.keyCount` bytes each, in the order of their labels.
        private let storage: UnsafeMutableRawBufferPointer
        /// How many keys there are.
        let count: Int

        /// One key for each of `labels` (HKDF's info, no salt), derived from `dataKey`.
        init(dataKey: UnsafeRawBufferPointer, labels: [String]) throws(SealingError) {
            let size = LibCrypto.keyCount
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size * labels.count, alignment: 16)
            do throws(SealingError) {
                for (index, label) in labels.enumerated() {
                    try Array(label.utf8).withBytes { info throws(SealingError) in
                        try LibCrypto.hkdfSHA256(
                            key: dataKey, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: info,
                            into: UnsafeMutableRawBufferPointer(rebasing: buffer[index * size..<(index + 1) * size]))
                    }
                }
            } catch {
                LibCrypto.cleanse(buffer)
                buffer.deallocate()
                throw error
            }
            storage = buffer
            count = labels.count
        }

        deinit {
            LibCrypto.cleanse(storage)
            storage.deallocate()
        }

        /// The key derived for the label at `index`.
        subscript(index: Int) -> UnsafeRawBufferPointer {
            let size = LibCrypto.keyCount
            return UnsafeRawBufferPointer(rebasing: storage[index * size..<(index + 1) * size])
        }
    }
#endif
