#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure to reach stored data, saying what failed and never what was stored.
///
/// `code` is what a caller switches on; the rest is for the person reading the message:
/// the operation (`"fsync"`, `"rename"`, `"write"`), the path or key, the errno, and a
/// reason where there is no errno. ``description`` is safe to print or log anywhere: it
/// never includes a value.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case unavailable, full, io, invalidId, unknownNamespace, corrupt
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The store refused access: `EACCES`, `EPERM`, `EROFS`, or storage disabled.
        public static let unavailable = Code(.unavailable)
        /// The store is out of room: `ENOSPC`, `EDQUOT`.
        public static let full = Code(.full)
        /// Any other input/output failure.
        public static let io = Code(.io)
        /// The id cannot be stored: empty, or too long for one file name.
        public static let invalidId = Code(.invalidId)
        /// The namespace is not one of the closed set.
        public static let unknownNamespace = Code(.unknownNamespace)
        /// The stored bytes are not a value this store can return (not UTF-8).
        public static let corrupt = Code(.corrupt)

        /// The code's name, as a message or a report shows it: `unavailable`, `full`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The operation that failed: a system call (`"open"`, `"fsync"`) or a port method.
    public let operation: String
    /// The file, directory or key involved; never a value.
    public let path: String?
    /// The errno the system returned, when the failure came from a system call.
    public let errno: Int32?
    /// Why, in words, when there is no errno to say it.
    public let reason: String?

    /// The error for `operation`, with the path, the errno or a reason where known; never a
    /// value. For a failed system call, prefer ``system(_:path:errno:)``, which maps the
    /// errno to the code.
    public init(code: Code, operation: String, path: String? = nil, errno: Int32? = nil, reason: String? = nil) {
        self.code = code
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = reason
    }

    /// The error for a failed system call, its code mapped from `errno` (the one place
    /// that mapping lives): a refused disk is `.unavailable`, a full one `.full`, the
    /// rest `.io`.
    public static func system(_ operation: String, path: String?, errno: Int32) -> StorageError {
        StorageError(code: Code(errno: errno), operation: operation, path: path, errno: errno)
    }

    /// The error for an id an adapter cannot store, naming the id and why.
    public static func invalidId(
        _ id: String, in namespace: Namespace, operation: String, reason: String
    )
        -> StorageError
    {
        StorageError(
            code: .invalidId, operation: operation, path: StorageKey(namespace, id).description, reason: reason)
    }

    /// The error for a namespace outside the closed set.
    public static func unknownNamespace(_ name: String) -> StorageError {
        StorageError(
            code: .unknownNamespace, operation: "namespace", path: quoted(name),
            reason: "not one of \(Namespace.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    /// Whether this failure belongs to the one file it names rather than to its store.
    ///
    /// Such a failure is the file's own: its bytes or its kind (``Code/corrupt``: not UTF-8,
    /// a symbolic link, a directory, a pipe), its name (``Code/invalidId``), or its
    /// permissions (`EACCES`, `EPERM` on that file). Reading any other file does not share
    /// it, so a caller going over many values reports that one as unreadable and goes on
    /// with the rest. Everything else (`EIO`, a full disk, a namespace that is not a
    /// directory) is the store's. This is the one place the line is drawn.
    public var isOneFilesProblem: Bool {
        switch code.base {
        case .corrupt, .invalidId: return true
        case .unknownNamespace, .full: return false
        case .unavailable, .io: return errno.map(Self.oneFileErrnos.contains) ?? false
        }
    }

    /// The errnos a read of one file can give that say nothing about the files beside it.
    private static let oneFileErrnos: Set<Int32> = [EACCES, EPERM, ELOOP, EISDIR, ENXIO, ENODEV, ENAMETOOLONG]

    /// `fsync of /data/store/chats/c1 failed: No space left on device (ENOSPC)`.
    public var description: String {
        var text = "\(operation)"
        if let path { text += " of \(path)" }
        text += " failed: "
        if let errno {
            text += "\(Self.message(errno)) (\(Self.name(errno)))"
            if let reason { text += "; \(reason)" }
        } else {
            text += reason ?? code.description
        }
        return text
    }

    /// `s` in double quotes, with control characters escaped and anything past 80
    /// characters elided, so that any id can be shown on one line.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        var count = 0
        for scalar in s.unicodeScalars {
            if count == 80 {
                out += "…(\(s.utf8.count) bytes)"
                break
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return out + "\""
    }

    private static func message(_ errno: Int32) -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EEXIST: "EEXIST", EXDEV: "EXDEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", EMFILE: "EMFILE", ENFILE: "ENFILE", EFBIG: "EFBIG",
        ENOSPC: "ENOSPC", EROFS: "EROFS", ENAMETOOLONG: "ENAMETOOLONG", ENOTEMPTY: "ENOTEMPTY",
        ELOOP: "ELOOP", EDQUOT: "EDQUOT", ESTALE: "ESTALE", ENXIO: "ENXIO",
    ]

    private static func name(_ errno: Int32) -> String {
        names[errno] ?? "errno \(errno)"
    }
}

extension StorageError.Code {
    /// The code for a system call's errno: the one mapping, used by every adapter.
    public init(errno: Int32) {
        switch errno {
        case EACCES, EPERM, EROFS: self = .unavailable
        case ENOSPC, EDQUOT: self = .full
        default: self = .io
        }
    }
}
