/// A still-image file format offconvert reads or writes.
public enum PhotoFormat: String, Sendable, Codable, CaseIterable {
    /// JPEG (JFIF/EXIF).
    case jpeg
    /// PNG, 8 or 16 bits per channel.
    case png
    /// WebP, lossy or lossless.
    case webp
    /// HEIF with HEVC-coded images (iPhone photos).
    case heic
    /// HEIF with AV1-coded images.
    case avif
    /// GIF (read only; the first frame).
    case gif
    /// JPEG XL (libjxl 0.7): lossy, lossless, or a JPEG recompressed losslessly.
    case jxl
    /// Windows bitmap (read only).
    case bmp
    /// TIFF or BigTIFF (read only; every page is an image).
    case tiff
    /// Truevision TGA, raw or RLE (read only).
    case tga
    /// Netpbm's PBM, PGM, PPM and PAM (read only; up to 16 bits a sample).
    case pnm
    /// A Windows icon or cursor, ICO or CUR (read only; its largest picture).
    case ico
    /// A Photoshop document, PSD or PSB (read only; its flattened composite).
    case psd
    /// JPEG 2000: a JP2 or JPX file or a bare J2K codestream (read only, through OpenJPEG).
    case jp2

    /// The `--quality` a conversion uses when none is asked for. 85 for JPEG and WebP; 55 for
    /// HEIC, where libheif's x265 scale runs higher: 55 gives a file no bigger than an iPhone's
    /// own HEIC at a similar look (IMG_5195: 798 kB against the original's 833 kB, SSIM 0.989
    /// against its decode; pug.heic: under 1.17 MB against 1.30 MB; 85 gave 2.4 times the size).
    /// 90 for JPEG XL: Butteraugli distance 1.0, cjxl's own default (see `JXLCodec.distance`).
    public var defaultQuality: Int {
        switch self {
        case .heic: 55
        case .jxl: 90
        default: 85
        }
    }

    /// The usual file-name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        case .avif: "avif"
        case .gif: "gif"
        case .jxl: "jxl"
        case .bmp: "bmp"
        case .tiff: "tiff"
        case .tga: "tga"
        case .pnm: "pnm"
        case .ico: "ico"
        case .psd: "psd"
        case .jp2: "jp2"
        }
    }

    /// Whether offconvert only reads this format (GIF, BMP, TIFF, TGA, PNM, ICO, PSD, JPEG 2000):
    /// no `--to` names it and no encoder writes it.
    public var isReadOnly: Bool {
        switch self {
        case .jpeg, .png, .webp, .heic, .avif, .jxl: false
        case .gif, .bmp, .tiff, .tga, .pnm, .ico, .psd, .jp2: true
        }
    }
}

extension PhotoFormat {
    /// Whether a file of this format can store an alpha channel (all but JPEG).
    package var storesAlpha: Bool { self != .jpeg }
}
