/// A still-image format as a file's first bytes name it (``MediaSniffer``): the short id that
/// `info` prints (``MediaInfo/format``), a readable name, and the ``PhotoFormat`` the photo
/// engine decodes it as. An open set: a format added later is one more static member.
package struct ImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// The short id (`jpeg`, `heic`, `heif`, ...).
    package let id: String
    /// The readable name ("HEIC image").
    package let name: String
    /// How the photo engine reads it: a plain HEIF (no HEVC or AV1 brand) goes through the same
    /// HEIF readers as a HEIC, which judge its items.
    package let photoFormat: PhotoFormat

    package var description: String { id }

    package static let jpeg = ImageFormat(id: "jpeg", name: "JPEG image", photoFormat: .jpeg)
    package static let png = ImageFormat(id: "png", name: "PNG image", photoFormat: .png)
    package static let gif = ImageFormat(id: "gif", name: "GIF image", photoFormat: .gif)
    package static let webp = ImageFormat(id: "webp", name: "WebP image", photoFormat: .webp)
    package static let jxl = ImageFormat(id: "jxl", name: "JPEG XL image", photoFormat: .jxl)
    package static let heic = ImageFormat(id: "heic", name: "HEIC image", photoFormat: .heic)
    package static let heif = ImageFormat(id: "heif", name: "HEIF image", photoFormat: .heic)
    package static let avif = ImageFormat(id: "avif", name: "AVIF image", photoFormat: .avif)
    package static let bmp = ImageFormat(id: "bmp", name: "BMP image", photoFormat: .bmp)
    package static let tiff = ImageFormat(id: "tiff", name: "TIFF image", photoFormat: .tiff)
    package static let tga = ImageFormat(id: "tga", name: "TGA image", photoFormat: .tga)
    package static let pbm = ImageFormat(id: "pbm", name: "PBM image", photoFormat: .pnm)
    package static let pgm = ImageFormat(id: "pgm", name: "PGM image", photoFormat: .pnm)
    package static let ppm = ImageFormat(id: "ppm", name: "PPM image", photoFormat: .pnm)
    package static let pam = ImageFormat(id: "pam", name: "PAM image", photoFormat: .pnm)
    package static let ico = ImageFormat(id: "ico", name: "Windows icon", photoFormat: .ico)
    package static let cur = ImageFormat(id: "cur", name: "Windows cursor", photoFormat: .ico)
    package static let psd = ImageFormat(id: "psd", name: "Photoshop document", photoFormat: .psd)
    package static let jp2 = ImageFormat(id: "jp2", name: "JPEG 2000 image", photoFormat: .jp2)
    package static let j2k = ImageFormat(id: "j2k", name: "JPEG 2000 codestream", photoFormat: .jp2)

    /// Every format the sniffer names.
    package static let all: [ImageFormat] = [
        .jpeg, .png, .webp, .gif, .heic, .heif, .avif, .jxl, .bmp, .tiff, .tga, .pbm, .pgm, .ppm, .pam, .ico, .cur,
        .psd, .jp2, .j2k,
    ]

    /// Whether it is one of the still formats FFmpeg would open as a one-frame video (TGA,
    /// Netpbm, ICO, PSD, JPEG 2000): the video engine refuses these rather than make a clip.
    package var isStillOnly: Bool { [.tga, .pnm, .ico, .psd, .jp2].contains(photoFormat) }

    /// Whether it is an ISO/HEIF item file (HEIC, plain HEIF, AVIF): read through ``HeifMeta``.
    var isHEIF: Bool { self == .heic || self == .heif || self == .avif }
}
