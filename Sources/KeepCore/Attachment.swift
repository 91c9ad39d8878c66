/// An image joined to a question (`keep ask -a`): its file name, its media type as its first
/// bytes say, and the bytes, kept with the question so a continued chat sends it again.
public struct Attachment: Sendable, Equatable {
    /// The file's name as it was given (`chart.png`), for display and for the request.
    public let name: String
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    public let mediaType: String
    /// The image, whole.
    public let bytes: [UInt8]

    /// The image `name` of type `mediaType`.
    public init(name: String, mediaType: String, bytes: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        self.bytes = bytes
    }

    /// Its size in bytes.
    public var size: Int { bytes.count }

    /// The image type `bytes` begin with (PNG, JPEG, GIF or WebP, by their magic bytes), or
    /// `nil` for anything else, whatever its name says.
    public static func imageType(of bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(12))
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if head.count == 12, starts(Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
