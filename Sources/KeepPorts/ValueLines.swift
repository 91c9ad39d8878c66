#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value read as lines, as ``StoragePort/append(_:_:)`` writes it: the one place that
/// says which bytes of a value are its finished lines.
///
/// A line ends with `"\n"`. The value's *unfinished* last line is what a crash in the middle
/// of an append can leave, and never counts as a line:
/// - the bytes after the last newline (the append's newline never reached the disk), or
/// - a last line holding a NUL, however it ends: a sector of the file that was not yet
///   written when the power went reads back as zeros, possibly before a newline that was.
///
/// A reader of lines (the chat reader, the sealer) ignores the unfinished last line; the
/// next append cuts it before adding its own. A NUL in any line but the last is damage, and
/// is the reader's to report.
public enum ValueLines {
    /// The byte that ends a line.
    public static let newline = UInt8(ascii: "\n")

    /// How many of `bytes` are finished lines: everything up to the last newline, less the
    /// last line when it holds a NUL.
    public static func finishedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // The C library's searches, which read a word at a time: a value opened whole (a
        // sealed chat of one record) has a last line of megabytes.
        guard let base = bytes.baseAddress, let last = lastNewline(base, before: bytes.count) else { return 0 }
        let start = lastNewline(base, before: last).map { $0 + 1 } ?? 0
        return memchr(base + start, 0, last - start) != nil ? start : last + 1
    }

    /// The index of the last newline among the `count` bytes at `base`, if any: eight
    /// bytes at a time back to the word that holds one (a word has a newline byte exactly
    /// when it XOR newlines has a zero byte, which the borrow test finds), then byte by byte.
    private static func lastNewline(_ base: UnsafePointer<UInt8>, before count: Int) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let newlines = ones &* UInt64(newline)
        var index = count
        while index >= 8 {
            let word = UnsafeRawPointer(base + index - 8).loadUnaligned(as: UInt64.self) ^ newlines
            if (word &- ones) & ~word & (ones &* 0x80) != 0 { break }
            index -= 8
        }
        while index > 0 {
            index -= 1
            if base[index] == newline { return index }
        }
        return nil
    }

    /// How many bytes of `value`'s UTF-8 are finished lines (see the buffer's form).
    public static func finishedCount(of value: String) -> Int {
        var value = value
        return value.withUTF8 { finishedCount($0) }
    }

    /// `value` without its unfinished last line: what an append adds its line after.
    public static func finished(_ value: String) -> Substring {
        let count = finishedCount(of: value)
        return value.utf8.count == count ? value[...] : Substring(value.utf8.prefix(count))
    }

    /// Throws, naming `key`, unless `line` can be one line of a value: no newline and no
    /// NUL inside. The error never quotes the line.
    public static func check(_ line: String, for key: StorageKey) throws(StorageError) {
        var line = line
        let fits = line.withUTF8 { !$0.contains(newline) && !$0.contains(0) }
        if !fits {
            throw StorageError(
                code: .io, operation: "append", path: key.description,
                reason: "a line to append holds a newline or a NUL, which no line can; nothing was written")
        }
    }

    /// `value` with its unfinished last line cut and the line `line` makes (given the offset
    /// it starts at) added, with its newline; throws as ``check(_:for:)`` does.
    public static func appending(
        _ line: (_ offset: Int) -> String, to value: String, key: StorageKey
    ) throws(StorageError) -> String {
        var result = String(finished(value))
        let text = line(result.utf8.count)
        try check(text, for: key)
        result += text
        result += "\n"
        return result
    }
}
