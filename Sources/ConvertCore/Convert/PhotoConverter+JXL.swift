/// Lossless JPEG → JPEG XL: the JPEG's DCT coefficients are kept as they are (no decode, no
/// re-encode), so `djxl` rebuilds the JPEG file bit for bit.
extension PhotoConverter {
    /// Note on an output whose pixels stayed as the JPEG had them, turned by its EXIF Orientation.
    static let recompressedNote = "JPEG recompressed losslessly (djxl restores it)"

    /// Note when libjxl could not store a JPEG for reconstruction and its pixels were encoded
    /// losslessly instead (the same picture, but djxl gives a PNG-like decode, not the JPEG).
    static let refusedRecompressionNote =
        "JPEG could not be recompressed losslessly; its pixels were stored losslessly instead"

    /// What became of a lossless JPEG recompression.
    enum Recompression {
        /// Not asked for, or the request needs a pixel encode (resizing, colour conversion).
        case notApplicable
        /// Written.
        case done(JobResult)
        /// libjxl 0.7 cannot store this JPEG for reconstruction; nothing written.
        case refused
    }

    /// The result of `convert JPEG --to jxl --lossless`, when the request is that and asks for
    /// nothing only a pixel encode can do (resizing, colour conversion).
    ///
    /// Metadata follows the request's policy like any output: with `--keep-metadata` the JPEG
    /// goes in exactly as it is; otherwise its EXIF, XMP and IPTC segments are replaced by the
    /// filtered ones first (keeping the EXIF Orientation: these pixels are not turned upright),
    /// and djxl gives back that JPEG.
    static func recompressedJPEG(
        _ request: PhotoRequest, opened: OpenedPhoto, cancellation: CancellationFlag
    ) throws(ConvertError) -> Recompression {
        guard request.format == .jxl, request.lossless, request.resize == nil, request.maxLongEdge == nil,
            request.color == .keep, request.targetByteCount == nil,
            try ImageDecoder.sniff(path: request.inputPath) == .jpeg
        else { return .notApplicable }
        var source = try ImageDecoder.readAll(path: request.inputPath)
        opened.sawJPEG(source)
        // A motion photo's MP4 sits after the JPEG's end, where libjxl would keep it as tail
        // data: like every conversion, this one writes the still only (the caller says so).
        if let motion = MotionPhoto.find(in: source) { source = MotionPhotoEditor.still(of: source, motion).bytes }
        let (jpeg, notes, location) = filteredJPEG(source, policy: request.metadata)
        guard let bytes = try JXLCodec.recompress(jpeg: jpeg) else { return .refused }
        try cancellation.check()
        let output = try writeWhole(bytes, for: request, cancellation: cancellation)
        return .done(
            JobResult(
                inputPath: request.inputPath, outputs: [output], notes: JobNote.facts(notes + [recompressedNote]),
                location: location))
    }

    /// `jpeg` with its metadata as `policy` wants it, and the policy's notes. Under `.keep` the
    /// file is untouched (so the round trip is byte-exact); otherwise only the APP segments
    /// ``JPEGSegmentAllowList`` keeps stay as they were.
    static func filteredJPEG(_ jpeg: [UInt8], policy: MetadataPolicy) -> (
        jpeg: [UInt8], notes: [String], location: LocationOutcome
    ) {
        let source = JPEGMarkers.metadata(jpeg)
        let iptc = IPTC.block(inJPEG: jpeg)
        let orientation = source.exif.flatMap { Exif(block: $0)?.orientation }
        if policy == .keep {
            let kept = OutputMetadata(exif: source.exif, xmp: source.xmp, iptc: iptc, policy: .keep)
            return (jpeg, kept.notes, kept.location)
        }
        let metadata = OutputMetadata(exif: source.exif, xmp: source.xmp, iptc: iptc, policy: policy)
        let exif = metadata.exif.map { block in orientation.map { restoring(orientation: $0, in: block) } ?? block }
        // APP1 carries EXIF and XMP, APP13 the IPTC: written again below, filtered. The other
        // APP segments are the source's own bytes, so only those a viewer needs stay (a FLIR
        // camera's APP1 GPS record, a vendor's APP3..APP15 would otherwise pass unread).
        let bare = JPEGSegmentAllowList.filtered(jpeg)
        let segments = ImageEncoder.jpegSegments(exif: exif, xmp: metadata.xmp, iptc: metadata.iptc, icc: nil)
        return (
            JPEGMarkers.inserting(segments.bytes, into: bare.jpeg), metadata.notes + bare.notes + segments.notes,
            metadata.location
        )
    }

    /// `block` (a TIFF stream whose Orientation the policy reset to 1) with `orientation` again.
    private static func restoring(orientation: Int, in block: [UInt8]) -> [UInt8] {
        guard let exif = Exif(tiff: block), let entry = exif.ifd0.entry(Exif.Tag.orientation), entry.type == 3,
            entry.valueOffset + 2 <= block.count
        else { return block }
        var out = block
        let value = UInt16(orientation)
        out[entry.valueOffset] = UInt8(exif.bigEndian ? value >> 8 : value & 0xFF)
        out[entry.valueOffset + 1] = UInt8(exif.bigEndian ? value & 0xFF : value >> 8)
        return out
    }
}
