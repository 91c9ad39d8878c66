import Foundation
import KeepFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fresh directory a run works in, on the file system Keep's data root is on, so
/// the flushes measured are the ones Keep's data would pay. Removed when the run ends.
///
/// Placement: with `--dir`, a new directory under it. Otherwise the data root is resolved
/// as Keep resolves it (``KeepFileStore/DataRoot``); when the temp directory is on the same
/// file system as the data root's nearest existing ancestor, the run works there (nothing
/// is made in the user's data home), else beside that ancestor, in `.keep-bench.XXXXXX`.
/// ``placement`` says which, and why.
final class BenchDirectory: Sendable {
    let path: String
    /// Where the directory is and why, for the report.
    let placement: String

    init(under override: String?, environment: [String: String]) throws(BenchError) {
        if let override {
            path = try Self.makeTemporary(in: override, name: "keep-bench")
            placement = "under --dir \(override)"
            return
        }
        let temporary = FileManager.default.temporaryDirectory.path
        let root: String
        do {
            root = try DataRoot.resolve(environment: environment)
        } catch {
            path = try Self.makeTemporary(in: temporary, name: "keep-bench")
            placement = "in the temp directory: no data root here (\(error.reason ?? error.description))"
            return
        }
        let ancestor = Self.nearestExisting(root)
        if let device = Self.device(ancestor), device == Self.device(temporary) {
            path = try Self.makeTemporary(in: temporary, name: "keep-bench")
            placement = "in the temp directory, on the same file system as the data root \(root)"
        } else {
            path = try Self.makeTemporary(in: ancestor, name: ".keep-bench")
            placement = "beside the data root \(root): the temp directory \(temporary) is on another file system"
        }
    }

    /// Removes the directory and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `component` under the run's directory.
    func appending(_ component: String) -> String {
        path + "/" + component
    }

    private static func makeTemporary(in base: String, name: String) throws(BenchError) -> String {
        let trimmed = base.hasSuffix("/") && base.count > 1 ? String(base.dropLast()) : base
        var template = Array("\(trimmed)/\(name).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else {
            throw BenchError(
                .setup, "mkdtemp", "cannot make a directory in \(trimmed): \(String(cString: strerror(errno)))")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` itself if it exists, else its nearest ancestor that does.
    private static func nearestExisting(_ path: String) -> String {
        var current = path
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            current = (current as NSString).deletingLastPathComponent
        }
        return current.isEmpty ? "/" : current
    }

    private static func device(_ path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(status.st_dev)
    }
}
