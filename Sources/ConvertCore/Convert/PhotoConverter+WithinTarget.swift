/// A JPEG that already fits its size target, kept as it is: re-encoding it would only lose
/// quality to save bytes nobody asked to save (videos that fit are copied the same way).
extension PhotoConverter {
    /// The note on a JPEG kept as it was.
    static let withinTargetNote = "already within the target size: kept as it is (not re-encoded)"

    /// The result of a JPEG → JPEG request with a target size that the input, its metadata
    /// filtered as the request's policy wants (``filteredJPEG(_:policy:)``), already meets; nil
    /// when the request asks for something only an encode can do (a resize, a colour
    /// conversion), when the photo carries an HDR gain map (whose XMP and MPF records the
    /// general path rewrites together), or when the filtered file is over the target.
    ///
    /// The EXIF Orientation is kept rather than applied: these are the source's pixels.
    static func jpegWithinTarget(
        _ request: PhotoRequest, opened: OpenedPhoto, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard let target = request.targetByteCount, request.format == .jpeg, opened.format == .jpeg,
            request.resize == nil, request.maxLongEdge == nil, request.color == .keep
        else { return nil }
        var source = try ImageDecoder.readAll(path: request.inputPath)
        opened.sawJPEG(source)
        // The same header checks as a decode: a picture over the pixel limit or larger than the
        // memory the process can get (a 2 KB file claiming 65500×65500) is refused, not copied.
        let header = try TurboJPEGHandle.decompressor().header(source, path: request.inputPath)
        try PixelLimit.check(
            width: header.width, height: header.height, limit: request.maxPixels, path: request.inputPath)
        // A CMYK photo is re-encoded: kept, it would still be one most screens show wrongly.
        guard !header.colorSpace.isInk else { return nil }
        guard JPEGGainMap.locate(source) == nil else { return nil }
        // A motion photo's MP4 is not part of the still, as in every conversion.
        if let motion = MotionPhoto.find(in: source) { source = MotionPhotoEditor.still(of: source, motion).bytes }
        // A file cut short goes through the decoder, which says what is missing.
        guard JPEGDamage.endsWithEOI(source) else { return nil }
        let (jpeg, notes, location) = filteredJPEG(source, policy: request.metadata)
        guard Int64(jpeg.count) <= target else { return nil }
        try cancellation.check()
        let output = try writeWhole(jpeg, for: request, cancellation: cancellation)
        return JobResult(
            inputPath: request.inputPath, outputs: [output], notes: JobNote.facts(notes + [withinTargetNote]),
            location: location)
    }
}
