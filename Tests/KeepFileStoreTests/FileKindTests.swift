import Foundation
import KeepConformance
import KeepPorts
import Testing

@testable import KeepFileStore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Special files are refused before they are opened")
struct FileKindTests {
    /// A directory holding one name of each kind.
    private func names() throws -> (TemporaryDirectory, [String: String]) {
        let directory = try TemporaryDirectory(prefix: "keep-kinds")
        let path = { (name: String) in directory.appending(name) }
        #expect(FileManager.default.createFile(atPath: path("file"), contents: Data("x".utf8)))
        #expect(mkfifo(path("fifo"), 0o600) == 0)
        #expect(mkdir(path("directory"), 0o700) == 0)
        #expect(symlink("/dev/null", path("to-device")) == 0)
        #expect(symlink(path("file"), path("to-file")) == 0)
        #expect(symlink(path("fifo"), path("to-fifo")) == 0)
        #expect(symlink(path("nowhere"), path("dangling")) == 0)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let socketPath = path("socket")
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(socket)
        let all = [
            "file", "fifo", "directory", "to-device", "to-file", "to-fifo", "dangling", "socket", "absent",
        ]
        return (directory, Dictionary(uniqueKeysWithValues: all.map { ($0, path($0)) }))
    }

    @Test("each kind of name is told by lstat, a link never followed unless asked")
    func kinds() throws {
        let (directory, paths) = try names()
        let expected: [String: FileKind?] = [
            "file": .regular, "fifo": .fifo, "directory": .directory, "to-device": .symbolicLink,
            "socket": .socket, "absent": nil,
        ]
        for (name, kind) in expected { #expect(try FileKind.of(paths[name]!) == kind, "\(name)") }
        #expect(try FileKind.of("/dev/null") == .characterDevice)
        #expect(try FileKind.of(paths["to-device"]!, following: true) == .characterDevice)
        #expect(try FileKind.of(paths["dangling"]!, following: true) == nil)
        withExtendedLifetime(directory) {}
    }

    @Test(
        "a FIFO, a device, a socket, a directory or a link to one is refused, in words naming the path and what is there",
        arguments: [
            ("fifo", "a named pipe (FIFO)"), ("to-device", "a character device"), ("socket", "a socket"),
            ("directory", "a directory"), ("to-fifo", "a named pipe (FIFO)"),
        ])
    func refused(_ name: String, _ words: String) throws {
        let (directory, paths) = try names()
        let path = paths[name]!
        #expect {
            try FileKind.refuseUnsafe(paths["file"]!, path)
        } throws: { error in
            let error = error as? StorageError
            return error?.code == .corrupt && error?.path == path
                && error?.description == "open of \(path) failed: it is \(words), not a file; keep does not open it "
                    + "(reading one can wait for ever)"
        }
        withExtendedLifetime(directory) {}
    }

    @Test("a regular file, a link to one, a name not there and a link leading nowhere are fine")
    func allowed() throws {
        let (directory, paths) = try names()
        try FileKind.refuseUnsafe(paths["file"]!, paths["to-file"]!, paths["absent"]!, paths["dangling"]!)
        withExtendedLifetime(directory) {}
    }
}
