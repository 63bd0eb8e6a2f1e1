/// What a JPEG's frame header says before any picture data is decoded: its size and the colour
/// model its samples are coded in.
struct JPEGHeader: Equatable, Sendable {
    /// The colour model of a JPEG's samples (TurboJPEG's `TJCS`).
    enum ColorSpace: Equatable, Sendable {
        /// YCbCr: nearly every camera and program.
        case ycbcr
        /// RGB stored as it is (rare; Adobe's transform 0 with three components).
        case rgb
        /// One grey component.
        case gray
        /// Four ink components stored as they are (print shops, Photoshop's CMYK mode).
        case cmyk
        /// CMYK whose C, M, Y went through a YCbCr transform (Adobe's transform 2).
        case ycck

        /// Whether the samples are printing inks that need converting to RGB.
        var isInk: Bool { self == .cmyk || self == .ycck }

        /// The name `info` shows for an ink model.
        var name: String {
            switch self {
            case .ycbcr: "YCbCr"
            case .rgb: "RGB"
            case .gray: "grey"
            case .cmyk: "CMYK"
            case .ycck: "YCCK"
            }
        }
    }

    /// Coded width in pixels.
    var width: Int
    /// Coded height in pixels.
    var height: Int
    /// The colour model of its samples.
    var colorSpace: ColorSpace
    /// What libjpeg warned about while reading the headers (stray bytes before a marker), when
    /// it read them only with a warning; nil for clean headers.
    var warning: String? = nil
}
