import KeepPorts

#if canImport(CCrypto)
    /// Keys HKDF-SHA256 derives from a data key, one for each label, in memory of their own
    /// (``KeyMemory``: left out of core files, kept out of swap where `mlock` is permitted)
    /// that is wiped (`OPENSSL_cleanse`) and freed when the last holder goes away: the one
    /// place a sealer's keys live.
    ///
    /// The data key itself is never kept: it is read once, to derive. Nothing here has a
    /// description, so no key can reach a message.
    ///
    /// `@unchecked Sendable`: the buffer is written once, in `init`, and only read after.
    final class DerivedKeys: @unchecked Sendable {
        /// The keys, `LibCrypto.keyCount` bytes each, in the order of their labels.
        private let memory: KeyMemory
        private var storage: UnsafeMutableRawBufferPointer { memory.bytes }
        /// How many keys there are.
        let count: Int

        /// One key for each of `labels` (HKDF's info, no salt), derived from `dataKey`.
        init(dataKey: UnsafeRawBufferPointer, labels: [String]) throws(SealingError) {
            let size = LibCrypto.keyCount
            guard let memory = KeyMemory(count: size * labels.count, wipe: LibCrypto.cleanse) else {
                throw SealingError(
                    code: .library, operation: "key memory", detail: "no memory could be had for the derived keys")
            }
            let buffer = memory.bytes
            // On a throw, KeyMemory wipes and unmaps the buffer as it goes.
            for (index, label) in labels.enumerated() {
                try Array(label.utf8).withBytes { info throws(SealingError) in
                    try LibCrypto.hkdfSHA256(
                        key: dataKey, salt: UnsafeRawBufferPointer(start: nil, count: 0), info: info,
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[index * size..<(index + 1) * size]))
                }
            }
            self.memory = memory
            count = labels.count
        }

        /// Whether the keys are kept out of swap and core files, as far as the system
        /// permitted (for a test to see).
        var isProtected: (locked: Bool, excludedFromCoreFiles: Bool) {
            (memory.isLocked, memory.isExcludedFromCoreFiles)
        }

        /// The key derived for the label at `index`.
        subscript(index: Int) -> UnsafeRawBufferPointer {
            let size = LibCrypto.keyCount
            return UnsafeRawBufferPointer(rebasing: storage[index * size..<(index + 1) * size])
        }
    }
#endif
