import Foundation

/// Reads every file in a directory as raw bytes, to look for what must not be there.
enum DiskScan {
    /// The paths of the files directly in `directory` whose bytes contain `needle`.
    static func files(in directory: String, containing needle: [UInt8]) throws -> [String] {
        try fileNames(in: directory).sorted().compactMap { name in
            let path = (directory as NSString).appendingPathComponent(name)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            return bytes.range(of: Data(needle)) == nil ? nil : path
        }
    }

    static func fileNames(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
    }
}
