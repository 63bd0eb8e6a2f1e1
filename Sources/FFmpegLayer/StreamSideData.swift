internal import CFFmpeg
import ConvertCore

/// Copies stream-level side data (display matrix, Dolby Vision configuration, mastering display
/// and content light level) from an input stream to an output stream.
package enum StreamSideData {
    /// The kinds of stream side data the pipeline carries over.
    package enum Kind: Sendable, CaseIterable {
        case displayMatrix, dolbyVisionConfiguration, masteringDisplay, contentLightLevel

        fileprivate var av: AVPacketSideDataType {
            switch self {
            case .displayMatrix: return AV_PKT_DATA_DISPLAYMATRIX
            case .dolbyVisionConfiguration: return AV_PKT_DATA_DOVI_CONF
            case .masteringDisplay: return AV_PKT_DATA_MASTERING_DISPLAY_METADATA
            case .contentLightLevel: return AV_PKT_DATA_CONTENT_LIGHT_LEVEL
            }
        }
    }

    /// Everything a passthrough keeps.
    package static let allKept: [Kind] = [
        .displayMatrix, .dolbyVisionConfiguration, .masteringDisplay, .contentLightLevel,
    ]

    /// HDR10 static metadata, kept by an HDR re-encode.
    package static let hdr: [Kind] = [.masteringDisplay, .contentLightLevel]

    static func copy(
        from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>,
        kinds: [Kind]
    ) {
        for kind in kinds {
            var size = 0
            guard let data = av_stream_get_side_data(input, kind.av, &size), size > 0,
                let copy = av_stream_new_side_data(output, kind.av, size)
            else { continue }
            copy.update(from: data, count: size)
        }
    }
}
