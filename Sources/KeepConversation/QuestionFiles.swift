import Foundation
import KeepCore
import KeepPorts

/// The files joined to a question: text files (`-f PATH`, repeatable) delimited with their
/// names after the question, and images (`-a PATH`) sent as the protocol's image parts.
///
/// Everything is read and checked before anything is sent, and the first file that cannot
/// be joined ends the command with one line naming it: a directory, a FIFO, a socket or a
/// device (only regular files are opened, and never one that would block); a text file that
/// is not UTF-8 or holds a NUL byte (a binary file); more than ``textLimit`` bytes of text in
/// all; an image that is not PNG, JPEG, GIF or WebP by its first bytes (its name is not
/// trusted); more than ``imageLimit`` bytes of images in all.
package enum QuestionFiles {
    /// The most text all `-f` files may join, together: 1 MiB, as for piped input.
    package static let textLimit = PipedInput.limit
    /// The most bytes all `-a` images may take, together: 20 MiB.
    package static let imageLimit = 20 << 20

    /// Why a file cannot be joined: its path, as given, and the reason.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let path: String
        package let reason: String
        package var description: String { "\(StorageError.quoted(path)) cannot be joined: \(reason)" }
    }

    /// `question` with each text file at `paths` after it, between `<file name="PATH">` and
    /// `</file>` lines, in the order given.
    package static func joined(question: String, paths: [String]) throws(Refusal) -> String {
        var total = 0
        var parts = [question]
        for path in paths {
            let bytes = try read(path, limit: textLimit - total, of: textLimit, what: "text")
            total += bytes.count
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                throw Refusal(path: path, reason: "it is not a text file (it holds bytes that are not UTF-8 text)")
            }
            let body = text.hasSuffix("\n") || text.isEmpty ? text : text + "\n"
            parts.append("<file name=\"\(path)\">\n\(body)</file>")
        }
        return parts.joined(separator: "\n\n")
    }

    /// The images at `paths`, in the order given, each typed by its first bytes.
    package static func images(_ paths: [String]) throws(Refusal) -> [Attachment] {
        var total = 0
        var images: [Attachment] = []
        for path in paths {
            let bytes = try read(path, limit: imageLimit - total, of: imageLimit, what: "images")
            total += bytes.count
            guard let type = Attachment.imageType(of: bytes) else {
                throw Refusal(path: path, reason: "it is not a PNG, JPEG, GIF or WebP image")
            }
            images.append(Attachment(name: (path as NSString).lastPathComponent, mediaType: type, bytes: bytes))
        }
        return images
    }

    /// The bytes of the regular file at `path`, at most `limit` of them (what is left of
    /// `whole` bytes of `what`, for the refusal).
    private static func read(_ path: String, limit: Int, of whole: Int, what: String) throws(Refusal) -> [UInt8] {
        let tooMuch = Refusal(
            path: path, reason: "the \(what) joined would pass \(whole >> 20) MiB in all, the most keep sends")
        // Opened without blocking, so a FIFO swapped in after a check cannot hang keep, and
        // checked on the open descriptor itself.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Refusal(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Refusal(path: path, reason: String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Refusal(path: path, reason: "it is a directory")
        case S_IFIFO: throw Refusal(path: path, reason: "it is a FIFO (a named pipe), not a file")
        default: throw Refusal(path: path, reason: "it is not a regular file")
        }
        guard Int(status.st_size) <= limit else { throw tooMuch }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Refusal(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes += buffer.prefix(count)
            guard bytes.count <= limit else { throw tooMuch }
        }
        return bytes
    }
}
