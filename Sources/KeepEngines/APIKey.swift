import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An API key as an engine holds it from the moment it is read until its request is over:
/// bytes in memory of its own, overwritten with zeros when the last reference goes.
///
/// The key is never a `String` inside the engines: a string's storage cannot be wiped,
/// and every copy of it would stay in the process's memory until reused. The header that
/// carries it is built from these bytes at the moment of sending (``headerValue(prefix:)``),
/// and nothing of the engines keeps it after the request. What remains is outside keep's
/// reach: the string the secrets port handed over (freed, not wiped), and the copies
/// URLSession and libcurl make of the header while sending it (freed, not wiped).
package final class APIKey: @unchecked Sendable {
    // @unchecked: written once, in init, read only after, wiped in deinit.
    private let storage: UnsafeMutableRawBufferPointer

    /// The key `text` as bytes; `nil` for an empty key (which is no key: no header is sent).
    package init?(_ text: String?) {
        guard let text, !text.isEmpty else { return nil }
        let utf8 = text.utf8
        let count = utf8.count
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        let copied = utf8.withContiguousStorageIfAvailable { storage.copyMemory(from: UnsafeRawBufferPointer($0)) }
        if copied == nil {
            for (index, byte) in utf8.enumerated() { storage[index] = byte }
        }
    }

    deinit {
        Self.wipe(storage)
        storage.deallocate()
    }

    /// How many bytes the key has.
    package var count: Int { storage.count }

    /// Runs `body` with the key's bytes; they must not be kept past it.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Whether the key holds a line break or another control character, which would end a
    /// header early (and so never goes into one).
    package var holdsControlCharacter: Bool {
        // C0 and DEL are one byte each; C1 (U+0080 to U+009F) is 0xC2 then 0x80 to 0x9F.
        storage.indices.contains { index in
            let byte = storage[index]
            return byte < 0x20 || byte == 0x7f
                || (byte == 0xc2 && index + 1 < storage.count && (0x80...0x9f).contains(storage[index + 1]))
        }
    }

    /// `prefix` followed by the key, as the one header value that carries it (such as
    /// `Bearer <key>`): made when the request is sent, and dropped with the request.
    package func headerValue(prefix: String) -> String {
        prefix + String(decoding: UnsafeRawBufferPointer(storage), as: UTF8.self)
    }

    /// Overwrites `bytes` with zeros in a way the compiler may not leave out.
    static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        #if canImport(Darwin)
            _ = memset_s(base, bytes.count, 0, bytes.count)
        #else
            explicit_bzero(base, bytes.count)
        #endif
    }
}
