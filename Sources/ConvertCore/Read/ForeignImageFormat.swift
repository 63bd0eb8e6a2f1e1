/// A still-image format offconvert recognises by its first bytes but does not read: PCX. Naming
/// it lets an error say what the file is ("lena.pcx is PCX, which offconvert does not read")
/// instead of calling it unknown, and keeps `info` and the batch triage from handing a still
/// picture to FFmpeg as a video.
package struct ForeignImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// The short id `info` prints (`pcx`).
    package let id: String
    /// The name an error message gives it ("PCX").
    package let name: String
    /// The readable name `info` shows ("PCX image").
    package let formatName: String

    private init(id: String, name: String, formatName: String? = nil) {
        self.id = id
        self.name = name
        self.formatName = formatName ?? "\(name) image"
    }

    package var description: String { id }

    package static let pcx = ForeignImageFormat(id: "pcx", name: "PCX")

    /// The format named by the first bytes `head` of a file, when it is one of these.
    static func of(head: [UInt8]) -> ForeignImageFormat? {
        // PCX: manufacturer 10, a known version, RLE or none, and a pixel depth PCX has.
        if head.count >= 4, head[0] == 0x0A, [0, 2, 3, 4, 5].contains(head[1]), head[2] <= 1,
            [1, 2, 4, 8].contains(head[3])
        {
            return .pcx
        }
        return nil
    }
}

extension ConvertError {
    /// The error for a still image in `format`, which offconvert names but does not read.
    package static func foreignImage(_ format: ForeignImageFormat, path: String) -> ConvertError {
        ConvertError(
            code: .unsupportedImageFormat, message: "\(path) is \(format.name), which offconvert does not read.",
            path: path)
    }
}
