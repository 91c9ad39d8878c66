import Foundation

/// Looks for a byte sequence in every regular file under some directories.
enum FileScan {
    /// The files under `roots` whose bytes contain `needle`. Symbolic links are not
    /// followed; a file that vanishes or cannot be read while the scan runs is skipped.
    static func files(under roots: [String], containing needle: Data) -> [String] {
        var found: [String] = []
        for root in roots {
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = (root as NSString).appendingPathComponent(relative)
                guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular,
                    let bytes = FileManager.default.contents(atPath: path)
                else { continue }
                if bytes.range(of: needle) != nil { found.append(path) }
            }
        }
        return found
    }
}
