import ConvertCore

/// The encoders' own option strings for an HDR re-encode: libx265's `x265-params` and
/// SVT-AV1's `svtav1-params`.
enum X265Parameters {
    /// The private options `encoder` gets for `hdr` (the source's HDR10 static metadata, when
    /// PQ is kept): x265 always gets its quiet logging, SVT-AV1 only HDR.
    static func encoderOptions(encoder: String, hdr: HDRStaticMetadata?) -> [(String, String)] {
        var options: [(String, String)] = []
        if encoder == "libx265" {
            options.append(("x265-params", x265(hdr: hdr)))
        }
        if encoder == "libsvtav1", let hdr, !hdr.svtAV1Parameters.isEmpty {
            options.append(("svtav1-params", (["enable-hdr=1"] + hdr.svtAV1Parameters).joined(separator: ":")))
        }
        return options
    }

    /// libx265's own options: quiet logging and, for HDR10, the static metadata as SEI
    /// (FFmpeg 5.1's wrapper does not pass mastering or light-level side data on by itself).
    static func x265(hdr: HDRStaticMetadata?) -> String {
        var parameters = ["log-level=error"]
        if let hdr { parameters += ["hdr10=1", "hdr10-opt=1", "repeat-headers=1"] + hdr.x265Parameters }
        return parameters.joined(separator: ":")
    }
}
