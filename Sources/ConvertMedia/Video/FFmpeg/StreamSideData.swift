internal import CFFmpeg
import ConvertCore

/// Copies stream-level side data (display matrix, Dolby Vision configuration, mastering display
/// and content light level) from an input stream to an output stream.
enum StreamSideData {
    /// Everything a passthrough keeps.
    static let allKept: [AVPacketSideDataType] = [
        AV_PKT_DATA_DISPLAYMATRIX, AV_PKT_DATA_DOVI_CONF, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
        AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
    ]

    /// HDR10 static metadata, kept by an HDR re-encode.
    static let hdr: [AVPacketSideDataType] = [AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL]

    static func copy(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>,
                     kinds: [AVPacketSideDataType]) {
        for kind in kinds {
            var size = 0
            guard let data = av_stream_get_side_data(input, kind, &size), size > 0,
                  let copy = av_stream_new_side_data(output, kind, size)
            else { continue }
            copy.update(from: data, count: size)
        }
    }
}
