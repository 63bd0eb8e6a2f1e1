internal import CFFmpeg
import ConvertCore

/// The first three planes of a planar video frame (Y, Cb, Cr), borrowed from a ``Frame`` for one
/// call of ``Frame/withPlanes(_:)``: base addresses and row lengths in bytes, so pixel code
/// reads and writes samples without naming `AVFrame`.
package struct FramePlanes {
    private let bases: (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?)
    /// Each plane's row length in bytes.
    let strides: (Int, Int, Int)

    fileprivate init(_ frame: AVFrame) {
        bases = (
            UnsafeMutableRawPointer(frame.data.0), UnsafeMutableRawPointer(frame.data.1),
            UnsafeMutableRawPointer(frame.data.2)
        )
        strides = (Int(frame.linesize.0), Int(frame.linesize.1), Int(frame.linesize.2))
    }

    /// Plane `index` (0 luma, 1 Cb, 2 Cr). A frame that has the plane is a precondition.
    package func base(_ index: Int) -> UnsafeMutableRawPointer {
        let base = index == 0 ? bases.0 : index == 1 ? bases.1 : bases.2
        guard let base else { preconditionFailure("plane \(index) of a frame without it") }
        return base
    }

    /// Plane `index`'s row length in bytes.
    package func stride(_ index: Int) -> Int { index == 0 ? strides.0 : index == 1 ? strides.1 : strides.2 }

    /// Row `row` of plane `index`, as samples of `type`.
    package func row<Sample>(_ index: Int, _ row: Int, as type: Sample.Type) -> UnsafeMutablePointer<Sample> {
        (base(index) + row * stride(index)).assumingMemoryBound(to: type)
    }
}

/// Where a 4:2:0 frame's chroma samples sit relative to the luma (H.273 / FFmpeg's
/// `AVChromaLocation`): an open set, as the frame says it.
package struct ChromaLocation: Hashable, Sendable {
    let rawValue: UInt32

    /// Co-sited with the even luma column, halfway between two rows (every phone; H.273 type 0).
    package static let left = ChromaLocation(AVCHROMA_LOC_LEFT)
    /// Co-sited with the top-left luma sample (H.273 type 2).
    package static let topLeft = ChromaLocation(AVCHROMA_LOC_TOPLEFT)
    /// Not said (zimg and players read it as left).
    package static let unspecified = ChromaLocation(AVCHROMA_LOC_UNSPECIFIED)

    private init(_ location: AVChromaLocation) { rawValue = location.rawValue }
    fileprivate init(rawValue: UInt32) { self.rawValue = rawValue }
}

extension Frame {
    /// Lends the frame's planes to `body`, which must not keep them.
    package func withPlanes<Result, Failure: Error>(_ body: (FramePlanes) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try withUnsafePointer { (frame) throws(Failure) in try body(FramePlanes(frame.pointee)) }
    }

    /// Where the chroma samples of this 4:2:0 frame sit.
    package var chromaLocation: ChromaLocation {
        withUnsafePointer { ChromaLocation(rawValue: $0.pointee.chroma_location.rawValue) }
    }

    /// Gives this (empty) frame fresh buffers for a `format` picture of `width` × `height`, with
    /// the properties of `source` (timing, colour tags, side data).
    package func allocate(
        format: PixelFormat, width: Int, height: Int, propertiesOf source: Frame, path: String
    ) throws(ConvertError) {
        try withUnsafePointer { (target) throws(ConvertError) in
            let copied = source.withUnsafePointer { av_frame_copy_props(target, $0) }
            try FFmpeg.check(copied, "copy frame properties", path: path, category: .internal)
            target.pointee.format = format.rawValue
            target.pointee.width = Int32(width)
            target.pointee.height = Int32(height)
            try FFmpeg.check(av_frame_get_buffer(target, 0), "allocate a frame", path: path, category: .internal)
        }
    }

    /// Tags the frame as SDR BT.709, limited range, and drops the side data that describes HDR
    /// light (mastering display, content light level, HDR10+, Dolby Vision): a tone-mapped
    /// picture must not claim its source's.
    package func markTonedToSDR() {
        withUnsafePointer { frame in
            frame.pointee.color_primaries = AVCOL_PRI_BT709
            frame.pointee.color_trc = AVCOL_TRC_BT709
            frame.pointee.colorspace = AVCOL_SPC_BT709
            frame.pointee.color_range = AVCOL_RANGE_MPEG
            for kind in [
                AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL,
                AV_FRAME_DATA_DYNAMIC_HDR_PLUS, AV_FRAME_DATA_DOVI_RPU_BUFFER, AV_FRAME_DATA_DOVI_METADATA,
            ] {
                av_frame_remove_side_data(frame, kind)
            }
        }
    }

    /// Sets the frame's pixel aspect ratio.
    package func setSampleAspect(_ aspect: Rational) {
        withUnsafePointer {
            $0.pointee.sample_aspect_ratio = AVRational(num: aspect.numerator, den: aspect.denominator)
        }
    }
}
