import KeepPorts

/// How an id becomes one flat file name, and back.
///
/// Bytes `a-z`, `0-9`, `-` and `_` stay as they are; every other byte of the id's UTF-8,
/// uppercase letters included, becomes `~` and two lowercase hex digits. So `../../boot` is
/// the file `~2e~2e~2f~2e~2e~2fboot` and `Chat-A` is `~43hat-~41`: no name can climb out of
/// its directory, start with `.` (the temp files' mark), or meet another on a file system
/// that folds case.
///
/// The id is put in Unicode canonical composition (NFC) first, because Swift compares
/// strings by canonical equivalence: `"é"` and `"e\u{301}"` are one `StorageKey`, so they
/// must be one file. Two ids Swift calls different always get different names, and a name
/// decodes to an id equal to the one written. Only the canonical spelling of an id is read
/// back: a name with uppercase hex, an escaped literal (`~61`), or bytes that are not UTF-8
/// in NFC is not one this store wrote, and is never listed.
package enum IdEncoding {
    /// The longest file name the store writes: `NAME_MAX` on Linux, and the APFS limit.
    package static let maximumNameLength = 255

    /// The file name for `id`, or an ``StorageError/Code/invalidId`` error naming it and
    /// saying why (empty, a name past 255 bytes: ids are never truncated, or a name that
    /// would not decode back to it).
    package static func fileName(for key: StorageKey, operation: String) throws(StorageError) -> String {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
        let name = encode(key.id)
        if name.utf8.count > maximumNameLength {
            throw .invalidId(
                key.id, in: key.namespace, operation: operation,
                reason:
                    "its file name would be \(name.utf8.count) bytes, and a file name holds at most \(maximumNameLength); ids are stored whole, never truncated"
            )
        }
        // The name must read back as this id, or the value could be written but never
        // listed: for a few sequences (a deprecated Tibetan vowel sign after another mark)
        // the standard library's NFC is not stable, and the name decodes to another id.
        if id(fromFileName: name) != key.id {
            throw .invalidId(
                key.id, in: key.namespace, operation: operation,
                reason: "its Unicode normal form is not stable, so its file name would not read back as this id")
        }
        return name
    }

    /// The id a file name stands for, or `nil` when the name is not one `fileName(for:)`
    /// could have produced.
    package static func id(fromFileName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength else { return nil }
        var bytes: [UInt8] = []
        var iterator = name.utf8.makeIterator()
        while let byte = iterator.next() {
            if isLiteral(byte) {
                bytes.append(byte)
            } else if byte == tilde, let high = iterator.next().flatMap(hexValue),
                let low = iterator.next().flatMap(hexValue)
            {
                bytes.append(high << 4 | low)
            } else {
                return nil
            }
        }
        // The canonical spelling only: re-encoding must give the very same name back.
        guard let id = String(checkedUTF8: bytes), encode(id) == name else { return nil }
        return id
    }

    /// `id` in NFC, escaped byte by byte.
    private static func encode(_ id: String) -> String {
        // ASCII is already in NFC; skipping the normalisation keeps the common case cheap.
        // The standard library's own NFC, the one `==` compares by: Foundation's on Linux
        // composes an astral character's low 16 bits with a following mark (U+12245 U+0338
        // became U+2247), which gave two different ids one file.
        let canonical = id.utf8.allSatisfy { $0 < 0x80 } ? Array(id.utf8) : id._nfcCodeUnits
        var name: [UInt8] = []
        name.reserveCapacity(canonical.count)
        for byte in canonical {
            if isLiteral(byte) {
                name.append(byte)
            } else {
                name.append(tilde)
                name.append(hexDigits[Int(byte >> 4)])
                name.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: name, as: UTF8.self)
    }

    private static let tilde = UInt8(ascii: "~")
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func isLiteral(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// The value of a lowercase hex digit; uppercase is not canonical, so not a digit here.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
