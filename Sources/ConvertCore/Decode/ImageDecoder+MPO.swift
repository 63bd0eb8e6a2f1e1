/// The other views of a multi-picture JPEG (an MPO stereo pair's right eye, a multi-angle set):
/// decoded as frames of their own with `--all-images`, otherwise left out with a note saying so.
extension ImageDecoder {
    /// The note of a conversion that keeps only the first view of a stereo or multi-angle photo.
    /// `count` is the number of views after the first.
    static func viewsLeftOutNote(_ count: Int) -> JobNote {
        let message =
            count == 1
            ? "a stereo (MPO) photo: only the first (left-eye) picture is kept"
            : "a multi-picture (MPO) photo: only the first of its \(count + 1) pictures is kept"
        return JobNote(.picturesLeftOut, message, detail: .picturesLeftOut(pictures: count + 1, stereo: count == 1))
    }

    /// The frames of `views` (``MPFIndex/views``) of JPEG `data`, each upright by
    /// its own EXIF Orientation and carrying its own metadata. A view the size of the first
    /// picture is decoded at its `scale` (shrink on load, as the first was); another at full size.
    static func jpegViews(
        _ views: [MPFIndex.Entry], of data: [UInt8], first: (width: Int, height: Int), scale: JPEGScale,
        options: DecodeOptions,
        path: String
    ) throws(ConvertError) -> [DecodedFrame] {
        var frames: [DecodedFrame] = []
        for view in views {
            let bytes = Array(data[view.range])
            let decoder = try TurboJPEGHandle.decompressor()
            let header = try decoder.header(bytes, path: path)
            let (width, height) = (header.width, header.height)
            try PixelLimit.check(width: width, height: height, limit: options.maxPixels, path: path)
            let viewScale = (width, height) == first ? scale : .full
            let size = (width: viewScale.scaled(width), height: viewScale.scaled(height))
            let pixels = try decoder.decodeRGB(bytes, width: size.width, height: size.height, path: path)
            let metadata = JPEGMarkers.metadata(bytes)
            let orientation = metadata.exif.flatMap { Exif(block: $0)?.orientation } ?? 1
            let bitmap = Bitmap(
                width: size.width, height: size.height, channels: 3, samples: .eight(pixels), sourceBitDepth: 8,
                icc: metadata.icc
            ).applyingOrientation(orientation)
            frames.append(
                DecodedFrame(bitmap: bitmap, exif: metadata.exif, xmp: metadata.xmp, iptc: IPTC.block(inJPEG: bytes)))
        }
        return frames
    }
}
