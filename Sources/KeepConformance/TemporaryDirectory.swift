import Foundation

/// A fresh directory of its own for one test, removed when the value is released.
///
/// Made with `mkdtemp` under the system temp directory, mode 0700. Tests that need a
/// store make one each, so nothing is shared between tests or with the machine.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// A fresh directory under the system's temp directory, its name starting with
    /// `prefix`, mode 0700.
    public convenience init(prefix: String = "keep-test") throws {
        try self.init(prefix: prefix, under: FileManager.default.temporaryDirectory.path)
    }

    /// A fresh directory under `base` (an absolute path), mode 0700: for a test whose child
    /// process runs as another user and must reach the directory from `/`.
    public init(prefix: String, under base: String) throws {
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base])
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` joined with `component`.
    public func appending(_ component: String) -> String {
        (path as NSString).appendingPathComponent(component)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
