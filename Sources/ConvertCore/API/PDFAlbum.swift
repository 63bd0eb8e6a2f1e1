import FoundationEssentials

/// Writes image albums as PDF with offconvert's own writer.
///
/// A JPEG that needs no transform (EXIF Orientation 1 or absent, no shrinking) is embedded as it is
/// (DCTDecode) with its metadata segments removed, so its compressed data is byte-identical and
/// no location leaves in it; any other image is decoded (orientation applied, alpha flattened on
/// white) and encoded to JPEG once. Each image's ICC profile is embedded as an ICCBased colour
/// space.
public enum PDFAlbum {
    /// Starts writing the album, on the threads of `limits`.
    public static func make(_ request: PDFRequest, limits: ConversionLimits = .shared) -> ConversionJob {
        ConversionJob.start(path: request.inputPaths.first ?? request.outputPath, admission: limits.admission) {
            reporter in
            try await runBlocking(on: limits.codec) { flag in
                try makeBlocking(request, reporter: reporter, cancellation: flag)
            }
        }
    }

    fileprivate static func makeBlocking(
        _ request: PDFRequest, reporter: ProgressReporter, cancellation: CancellationFlag
    )
        throws(ConvertError) -> JobResult
    {
        guard !request.inputPaths.isEmpty else {
            throw ConvertError(code: .requestNoInputs, message: "No images were given for the PDF.")
        }
        guard request.margin >= 0, request.margin <= maximumMargin(for: request.page) else {
            throw ConvertError(
                code: .requestMargin,
                message:
                    "A margin of \(Int(request.margin)) points leaves no room for the image on a \(request.page.rawValue) page "
                    + "(at most \(Int(maximumMargin(for: request.page))) points).")
        }
        if let edge = request.maxLongEdge, edge < 1 {
            throw ConvertError(code: .requestMaxSize, message: "The largest image size must be at least 1 pixel.")
        }
        let output = request.outputPath
        if request.inputPaths.contains(where: { OutputNamer.isSameFile($0, output) }) {
            throw ConvertError(
                code: .outputIsInput, message: "The PDF would replace one of its own images: \(output).", path: output)
        }
        let stage = try StagedOutput(destination: output)
        let writer = try PDFWriter(path: stage.temporaryPath)
        var notes: [String] = []
        var reEncoded = 0
        for (index, input) in request.inputPaths.enumerated() {
            try cancellation.check()
            let (image, embeddedAsIs) = try page(index + 1, of: input, request: request, cancellation: cancellation)
            if !embeddedAsIs { reEncoded += 1 }
            let layout = layout(
                width: Double(image.width), height: Double(image.height), page: request.page, margin: request.margin)
            try writer.addPage(image, pageWidth: layout.pageWidth, pageHeight: layout.pageHeight, box: layout.box)
            reporter.report(.encoding, Double(index + 1) / Double(request.inputPaths.count) * 0.95)
        }
        try writer.finish()
        try cancellation.check()
        let file = try stage.commit(overwrite: request.overwrite, gate: request.placementGate)
        let copied = request.inputPaths.count - reEncoded
        if copied > 0 { notes.append("\(copied) JPEG\(copied == 1 ? "" : "s") embedded without re-encoding") }
        if reEncoded > 0 { notes.append("\(reEncoded) image\(reEncoded == 1 ? "" : "s") encoded as JPEG") }
        notes.append("metadata and location not included")
        return JobResult(inputPath: request.inputPaths[0], outputs: [file], notes: JobNote.facts(notes))
    }

    /// The largest margin that leaves an inch for the image on the short side of `page`.
    package static func maximumMargin(for page: PDFPageSize) -> Double {
        switch page {
        case .fit: 1000
        case .a4: (595.276 - 72) / 2
        case .letter: (612 - 72) / 2
        }
    }

    /// Page `number`'s image, with any failure naming that page and its file (not the album's
    /// first image).
    private static func page(_ number: Int, of input: String, request: PDFRequest, cancellation: CancellationFlag)
        throws(ConvertError) -> (PDFWriter.PageImage, Bool)
    {
        do {
            return try pageImage(
                input, quality: request.quality, maxLongEdge: request.maxLongEdge, cancellation: cancellation)
        } catch  where error.category == .cancelled {
            throw error
        } catch {
            var named = error
            named.message =
                (error.message.contains(input) ? "Page \(number): " : "Page \(number) (\(input)): ") + error.message
            named.path = input
            throw named
        }
    }

    /// Page and image placement for an image of `width`×`height` pixels: scaled to fit inside the
    /// margins and centred (never enlarged beyond 1 pixel = 1 point on fixed-size pages). Pure.
    package static func layout(width: Double, height: Double, page: PDFPageSize, margin: Double)
        -> (pageWidth: Double, pageHeight: Double, box: (Double, Double, Double, Double))
    {
        let landscape = width > height
        let size: (Double, Double)
        switch page {
        case .fit: return (width + 2 * margin, height + 2 * margin, (margin, margin, width, height))
        case .a4: size = (595.276, 841.890)
        case .letter: size = (612, 792)
        }
        let pageWidth = landscape ? size.1 : size.0
        let pageHeight = landscape ? size.0 : size.1
        let availableWidth = max(1, pageWidth - 2 * margin)
        let availableHeight = max(1, pageHeight - 2 * margin)
        let scale = min(availableWidth / width, availableHeight / height, 1)
        let w = width * scale
        let h = height * scale
        return (pageWidth, pageHeight, ((pageWidth - w) / 2, (pageHeight - h) / 2, w, h))
    }

    /// The JPEG for one page, and whether it is the input's own compressed data.
    fileprivate static func pageImage(
        _ path: String, quality: Int, maxLongEdge: Int? = nil, cancellation: CancellationFlag
    )
        throws(ConvertError) -> (PDFWriter.PageImage, Bool)
    {
        if try ImageDecoder.sniff(path: path) == .jpeg, let image = try embeddableJPEG(path, maxLongEdge: maxLongEdge) {
            return (image, true)
        }
        var options = DecodeOptions()
        options.decodingThreads = ProcessInfo.processInfo.activeProcessorCount
        options.maxLongEdge = maxLongEdge
        let photo = try ImageDecoder.decode(path: path, options: options, cancellation: cancellation)
        guard let frame = photo.frames.first else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) has no image.", path: path)
        }
        let bitmap = frame.bitmap.flattened(onto: .white).toEightBit()
        let encoded = try ImageEncoder.jpegBytes(bitmap, quality: quality, exif: nil, xmp: nil)
        let image = PDFWriter.PageImage(
            jpeg: JPEGMarkers.removing(markers: [0xE2], from: encoded.bytes), width: bitmap.width,
            height: bitmap.height,
            components: 3, icc: bitmap.icc)
        return (image, false)
    }

    /// The JPEG at `path` as a page image as it is, when it can be: upright, within
    /// `maxLongEdge`, and in a colour model a PDF reader shows right; nil when it must be decoded.
    private static func embeddableJPEG(_ path: String, maxLongEdge: Int?) throws(ConvertError) -> PDFWriter.PageImage? {
        let data = try ImageDecoder.readAll(path: path)
        let decoder = try TurboJPEGHandle.decompressor()
        let header = try decoder.header(data, path: path)
        // Ink samples are decoded to RGB: a reader would take them as DeviceCMYK without
        // Adobe's inversion, and show a negative.
        guard !header.colorSpace.isInk else { return nil }
        // A JPEG embedded as it is must decode completely: a damaged or truncated one would
        // become a page with grey bands. Decoding at the smallest scale reads every entropy-
        // coded byte at a fraction of a full decode's cost.
        let check = JPEGScale.reductions.first ?? .full
        _ = try decoder.decodeRGB(
            data, width: check.scaled(header.width), height: check.scaled(header.height), path: path)
        let metadata = JPEGMarkers.metadata(data)
        let orientation = metadata.exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        guard orientation == 1, max(header.width, header.height) <= maxLongEdge ?? .max else { return nil }
        // A page carries no metadata: APP1 (EXIF, XMP) and APP13 (Photoshop/IPTC) go, and of
        // the other APP segments only those a viewer needs (JFIF, ICC, Adobe's transform) stay.
        let stripped = JPEGSegmentAllowList.filtered(data).jpeg
        return PDFWriter.PageImage(
            jpeg: stripped, width: header.width, height: header.height, components: header.colorSpace == .gray ? 1 : 3,
            icc: metadata.icc)
    }
}
