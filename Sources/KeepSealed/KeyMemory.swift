#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for key material, kept out of core files and swap as far as the system allows,
/// and wiped before it is given back.
///
/// Its own pages (`mmap`, anonymous and private, so nothing else shares them), then:
/// - `madvise(MADV_DONTDUMP)` (Linux): the pages are left out of any core file, whatever
///   the core size limit says;
/// - `mlock`: the pages are never written to swap. This may be refused (a locked-memory
///   limit, `RLIMIT_MEMLOCK`, that is used up, or a sandbox): the memory is used all the
///   same, and ``isLocked`` says so;
/// - on release, the bytes are overwritten (`wipe`, a write the compiler keeps), then
///   `munlock` and `munmap`.
///
/// Every call's result is checked: one that fails is said by ``isLocked`` and
/// ``isExcludedFromCoreFiles``, never taken as done. Only the allocation failing
/// (no memory at all) is an error.
final class KeyMemory: @unchecked Sendable {
    // @unchecked: the pages are written by the owner before it shares them, read only after.
    /// The usable bytes (the first `count` bytes of the pages).
    let bytes: UnsafeMutableRawBufferPointer
    private let pages: UnsafeMutableRawPointer
    private let length: Int
    /// Whether `mlock` kept the pages out of swap.
    let isLocked: Bool
    /// Whether `madvise(MADV_DONTDUMP)` kept the pages out of core files (always `false`
    /// off Linux, which has no such advice).
    let isExcludedFromCoreFiles: Bool

    /// `count` bytes of key memory; `wipe` overwrites `count` bytes in place.
    init?(count: Int, wipe: @escaping (UnsafeMutableRawBufferPointer) -> Void) {
        let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        length = max(1, (count + pageSize - 1) / pageSize) * pageSize
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        pages = mapped
        #if os(Linux)
            isExcludedFromCoreFiles = madvise(mapped, length, MADV_DONTDUMP) == 0
        #else
            isExcludedFromCoreFiles = false
        #endif
        isLocked = mlock(mapped, length) == 0
        bytes = UnsafeMutableRawBufferPointer(start: mapped, count: count)
        self.wipe = wipe
    }

    private let wipe: (UnsafeMutableRawBufferPointer) -> Void

    deinit {
        wipe(UnsafeMutableRawBufferPointer(start: pages, count: length))
        if isLocked { _ = munlock(pages, length) }
        _ = munmap(pages, length)
    }
}
