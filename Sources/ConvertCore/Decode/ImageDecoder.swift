import FoundationEssentials
import Glibc

/// One decoded picture with the metadata that belongs to it.
struct DecodedFrame: Sendable {
    /// Upright pixels (orientation already applied) tagged with their ICC profile.
    package var bitmap: Bitmap
    /// The EXIF TIFF stream, if the image had one.
    package var exif: [UInt8]?
    /// The XMP packet, if any.
    package var xmp: [UInt8]?
    /// The IPTC-IIM block (a JPEG's APP13 resource 0x0404), if any.
    package var iptc: [UInt8]? = nil
    /// A PNG's text chunks (tEXt, zTXt, iTXt) but its XMP.
    package var pngText: [PNGText.Entry] = []
    /// The nclx of pixels kept in an HDR transfer for an output that states it
    /// (``HDRStillPolicy/keepTransfer``); the bitmap then has no ICC profile.
    var hdrCoding: NCLX? = nil
}

/// A decoded input: its format, the picture(s) asked for, and notes for the user.
struct DecodedPhoto: Sendable {
    package var format: PhotoFormat
    package var frames: [DecodedFrame]
    package var notes: [JobNote]
    /// The scale the decoder itself decoded at (a JPEG's DCT scaling), 1/1 for a full-size
    /// decode. Tests read it to prove the shrink-on-load path was taken.
    var decodeScale = JPEGScale.full
    /// The resize plan made for the full-size picture when the decoder scaled it on load, so the
    /// output size is the same as from a full-size decode.
    package var plan: ResizePlan?
    /// The HDR transfer a PQ/HLG still was tone mapped from (``DecodeOptions/hdrStill``).
    package var toneMapped: HDRTransfer?
    /// The gain map computed from such a still's HDR picture, lined up with its primary frame.
    var hdrGainMap: CarriedGainMap?

    /// Records the tone mapping of frame `index`: its note, and its gain map.
    mutating func record(_ still: HDRStill, frameIndex index: Int) {
        toneMapped = still.transfer
        for note in [still.toneMappedNote, still.notKeptNote].compactMap({ $0 }) where !notes.contains(note) {
            notes.append(note)
        }
        if let map = still.gainMap {
            hdrGainMap = CarriedGainMap(
                map: map, sourceWidth: still.bitmap.width, sourceHeight: still.bitmap.height, frameIndex: index)
        }
    }
}

/// What to decode and how.
struct DecodeOptions: Sendable {
    /// Every top-level image of a multi-image HEIF instead of the primary one.
    package var allImages = false
    /// Shrink so the long edge is at most this (after ``resize``), using the decoder's own
    /// scaling where it can.
    package var maxLongEdge: Int?
    /// Crop, scale or pad the upright picture to a box, using the decoder's own scaling where it can.
    package var resize: PhotoResize?
    /// What fills the bars of a padded resize.
    package var padding: Resampler.Padding = .color(.white)
    /// libheif's tile-decoding threads for this one file.
    package var decodingThreads = ProcessInfo.processInfo.activeProcessorCount
    /// Refuse images with more pixels than this before allocating them.
    package var maxPixels = PixelLimit.defaultMaxPixels
    /// Refuse a damaged photo instead of converting what decodes (with a note).
    package var strict = false
    /// The frame of an animation (GIF, WebP) to decode, from 0; nil: the first, with a note.
    package var frame: Int?
    /// What happens to a PQ/HLG still; nil keeps its code values.
    var hdrStill: HDRStillPolicy?
    /// Hears how far a decode in pieces (a HEIF grid's tiles) got.
    var progress: DecodeProgress?
}

/// Decodes any supported still image to upright bitmaps, choosing the decoder by the file's
/// content, not its name (a JPEG renamed `.heic` is read as the JPEG it is).
package enum ImageDecoder {
    /// Reads the first bytes of `path` and identifies the format.
    static func sniff(path: String) throws(ConvertError) -> PhotoFormat {
        let head = try readHead(path: path, count: 64)
        let kind = MediaSniffer.kind(of: head, path: path)
        guard let format = kind.photoFormat else {
            // The same codes as the media probe's for the same files: an empty file, and content
            // no reader recognises; a video is a valid file this reader does not take.
            if head.isEmpty { throw ConvertError.emptyInput(path) }
            switch kind {
            case .isoMedia, .matroska:
                throw ConvertError(code: .unsupportedNotAPhoto, message: "\(path) is a video, not a photo.", path: path)
            case .foreignImage(let foreign):
                throw ConvertError.foreignImage(foreign, path: path)
            default:
                break
            }
            throw ConvertError(
                code: .inputUnrecognised,
                message:
                    "\(path) is not an image format offconvert reads (JPEG, PNG, WebP, HEIC, AVIF, GIF, JPEG XL, BMP, TIFF, TGA, PNM, ICO, PSD, JPEG 2000).",
                path: path)
        }
        return format
    }

    static func readHead(path: String, count: Int) throws(ConvertError) -> [UInt8] {
        try checkRegularFile(path)
        guard let head = RawFile.head(of: path, count: count) else { throw openError(path) }
        return head
    }

    /// Whole reads of watched files (``readAll(path:)``), for tests that prove a file is read once.
    package static let wholeReads = FileReadCounter()

    package static func readAll(path: String) throws(ConvertError) -> [UInt8] {
        wholeReads.count(path: path)
        try checkRegularFile(path)
        guard let data = RawFile.contents(of: path) else { throw openError(path) }
        return data
    }

    /// Refuses folders, FIFOs and devices before opening: opening a FIFO for reading would block
    /// until something writes to it.
    private static func checkRegularFile(_ path: String) throws(ConvertError) {
        var info = stat()
        // An input's problem, not an output's: a symlink loop is input.unreadable, not device.io.
        guard stat(path, &info) == 0 else { throw .opening(path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path, mode: info.st_mode) }
    }

    private static func openError(_ path: String) -> ConvertError {
        ConvertError(code: .inputUnreadable, message: "\(path) cannot be read.", path: path)
    }

    /// A frame of a format whose decoder leaves orientation to us: turned upright by its EXIF
    /// Orientation, metadata kept.
    private static func upright(_ bitmap: Bitmap, exif: [UInt8]?, xmp: [UInt8]?) -> DecodedFrame {
        let orientation = exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        return DecodedFrame(bitmap: bitmap.applyingOrientation(orientation), exif: exif, xmp: xmp)
    }

    /// Decodes `path`; `opened` is its readers when the caller opened it already (see
    /// ``OpenedPhoto``), so neither offconvert's reader nor libheif parses its structure again.
    static func decode(
        path: String, options: DecodeOptions, cancellation: CancellationFlag, opened: OpenedPhoto? = nil
    ) throws(ConvertError) -> DecodedPhoto {
        let format: PhotoFormat
        if let opened { format = opened.format } else { format = try sniff(path: path) }
        var photo: DecodedPhoto
        switch format {
        case .heic, .avif:
            let readers: OpenedPhoto
            if let opened {
                readers = opened
            } else {
                readers = try OpenedPhoto(
                    PhotoInput.open(path: path, for: .converting), decodingThreads: options.decodingThreads)
            }
            let sequence = try sequenceSummary(readers, options: options)
            photo = try decodeHeif(readers, options: options, cancellation: cancellation)
            if let sequence { photo.notes.append(sequence.sequenceStillNote(format: format)) }
        case .jpeg:
            photo = try decodeJPEG(path: path, options: options, opened: opened)
        case .png:
            // A PNG cut short is converted as far as it goes, unless --strict refuses it.
            let data = try readAll(path: path)
            let decoded = try PNGCodec.decode(
                data, maxPixels: options.maxPixels, path: path, tolerateCut: !options.strict)
            var frame = upright(decoded.bitmap, exif: decoded.exif, xmp: decoded.xmp)
            frame.pngText = decoded.texts
            photo = DecodedPhoto(
                format: .png, frames: [frame], notes: decoded.damage.map { [JobNote(fact: $0)] } ?? [])
            describeColor(of: &photo, chunks: PNGColorChunks(data), options: options)
            if let animation = AnimationSummary.of(data, format: .png, path: path) {
                // libpng reads an APNG's default image only: its other frames cannot be picked.
                guard options.frame ?? 0 == 0 else {
                    throw frameError(options.frame ?? 0, of: animation.frames, path: path, picked: false)
                }
                photo.notes.append(animation.stillNote(frame: nil, format: .png))
            }
        case .webp, .gif:
            photo = try decodeAnimatable(readAll(path: path), format: format, options: options, path: path)
        case .jxl:
            photo = try decodeJXL(path: path, options: options)
        case .bmp:
            // A BMP cut short is converted as far as it goes, unless --strict refuses it, as for PNG.
            let decoded = try BMPDecoder.decode(
                readAll(path: path), maxPixels: options.maxPixels, path: path, tolerateCut: !options.strict)
            photo = DecodedPhoto(
                format: .bmp, frames: [DecodedFrame(bitmap: decoded.bitmap)],
                notes: [decoded.arrayNote, decoded.damage].compactMap { $0 }.map(JobNote.init(fact:)))
        case .tga, .pnm, .ico, .psd, .jp2:
            photo = try decodeSmallFormat(format, path: path, options: options)
        case .tiff:
            // libtiff has no orientation of its own to apply: the decoder turns each page upright.
            let data = try readAll(path: path)
            let decoded = try TIFFDecoder.decode(
                data, maxPixels: options.maxPixels, allImages: options.allImages, strict: options.strict, path: path,
                cancellation: cancellation)
            // The first page's EXIF-like tags (camera, date, GPS) go through the metadata policy
            // as a JPEG's would; the other pages' directories are not read for them.
            let exif = Exif.ofTIFFPage(data)
            photo = DecodedPhoto(
                format: .tiff,
                frames: decoded.pages.enumerated().map {
                    DecodedFrame(bitmap: $1.bitmap, exif: $0 == 0 ? exif : nil, xmp: $1.xmp)
                },
                notes: decoded.notes)
        }
        try cancellation.check()
        // Bitmaps are RGB: a grey (or CMYK) profile from a grey JPEG/PNG expanded to RGB would
        // mislabel the pixels, and an unparsable one helps nobody.
        for index in photo.frames.indices {
            if let icc = photo.frames[index].bitmap.icc, ColorProfiles.channelCount(icc) != 3 {
                photo.frames[index].bitmap.icc = nil
                if !photo.notes.contains("non-RGB colour profile dropped") {
                    photo.notes.append("non-RGB colour profile dropped")
                }
            }
        }
        if options.resize != nil || options.maxLongEdge != nil {
            for index in photo.frames.indices {
                let bitmap = photo.frames[index].bitmap
                // A JPEG decoded at a DCT scale carries its plan's output sizes already mapped.
                let plan =
                    photo.plan
                    ?? ResizePlan(
                        sourceWidth: bitmap.width, sourceHeight: bitmap.height, resize: options.resize,
                        maxLongEdge: options.maxLongEdge)
                photo.frames[index].bitmap = try Resampler.apply(
                    plan.forSource(width: bitmap.width, height: bitmap.height), to: bitmap, padding: options.padding)
            }
        }
        return photo
    }

    /// A TGA, Netpbm, icon, Photoshop or JPEG 2000 picture: one frame, no metadata read.
    private static func decodeSmallFormat(_ format: PhotoFormat, path: String, options: DecodeOptions)
        throws(ConvertError) -> DecodedPhoto
    {
        let data = try readAll(path: path)
        let limit = options.maxPixels
        var notes: [String] = []
        let bitmap: Bitmap
        switch format {
        case .tga: bitmap = try TGADecoder.decode(data, maxPixels: limit, path: path)
        case .pnm: bitmap = try PNMDecoder.decode(data, maxPixels: limit, path: path)
        case .ico:
            let header = try ICODecoder.header(data, path: path)
            bitmap = try ICODecoder.decode(data, maxPixels: limit, path: path)
            if header.count > 1 {
                notes.append(
                    "an icon of \(header.count) pictures: the largest (\(bitmap.width)x\(bitmap.height)) converted")
            }
        case .psd:
            let decoded = try PSDDecoder.decode(data, maxPixels: limit, path: path)
            (bitmap, notes) = (decoded.bitmap, decoded.notes)
        default: bitmap = try JPEG2000Decoder.decode(data, maxPixels: limit, path: path)
        }
        return DecodedPhoto(
            format: format, frames: [DecodedFrame(bitmap: bitmap)], notes: notes.map(JobNote.init(fact:)))
    }

    /// A GIF or WebP: frame ``DecodeOptions/frame`` of an animation (the first by default, with a
    /// note that the rest is not kept), or the still picture.
    private static func decodeAnimatable(
        _ data: [UInt8], format: PhotoFormat, options: DecodeOptions, path: String
    ) throws(ConvertError) -> DecodedPhoto {
        guard let animation = try AnimatedPicture.open(data, format: format, maxPixels: options.maxPixels, path: path)
        else {
            guard options.frame ?? 0 == 0 else { throw frameError(options.frame ?? 0, of: 1, path: path, picked: true) }
            let decoded = try WebPCodec.decode(data, maxPixels: options.maxPixels, path: path)
            return DecodedPhoto(
                format: format, frames: [upright(decoded.bitmap, exif: decoded.exif, xmp: decoded.xmp)], notes: [])
        }
        let index = options.frame ?? 0
        guard index < animation.frameCount else {
            throw frameError(index, of: animation.frameCount, path: path, picked: true)
        }
        var notes: [JobNote] = []
        if let summary = animation.summary {
            notes.append(summary.stillNote(frame: options.frame, format: format))
        }
        // A GIF cut short shows what it holds (the rows of its last frame so far), as giflib and
        // every viewer show it, unless --strict refuses it.
        if case .gif(let gif) = animation, let cut = gif.cutShortNote(frame: index) {
            if options.strict {
                throw ConvertError(
                    code: .inputTruncated, message: "\(path) is incomplete: the GIF ends before its last frame does.",
                    path: path)
            }
            notes.append(JobNote(fact: cut))
        }
        // A WebP animation's metadata chunks belong to the file, as a still's do.
        let mux = format == .webp ? WebPMuxer.parsing(data) : nil
        var bitmap = try animation.frame(index)
        bitmap.icc = mux?.chunk("ICCP")
        let frame = upright(bitmap, exif: mux?.chunk("EXIF"), xmp: mux?.chunk("XMP "))
        return DecodedPhoto(format: format, frames: [frame], notes: notes)
    }

    /// The error for `--frame` past the last of `count` frames (`picked`: the format can give
    /// any frame; an APNG gives its first only).
    private static func frameError(_ index: Int, of count: Int, path: String, picked: Bool) -> ConvertError {
        let message =
            picked
            ? "\(path) has \(count) frame\(count == 1 ? "" : "s"): there is no frame \(index + 1)."
            : "\(path) is an animated PNG: only its first frame can be converted (APNG frames are not read)."
        return ConvertError(code: .requestFrame, message: message, path: path)
    }

    /// The frames of an animated AVIF's (or HEIF's) movie track, which libheif 1.15 does not
    /// read: only the still image converts, so `--frame` past the first is refused.
    private static func sequenceSummary(_ opened: OpenedPhoto, options: DecodeOptions) throws(ConvertError)
        -> AnimationSummary?
    {
        guard let summary = AnimationSummary.ofSequence(meta: opened.heif?.meta, path: opened.path) else { return nil }
        if let frame = options.frame, frame > 0 {
            let name = opened.format == .avif ? "AVIF" : "HEIF"
            throw ConvertError(
                code: .requestFrame,
                message:
                    "\(opened.path) is an animated \(name): only its still image (frame 1) can be converted (offconvert cannot read \(name) animation frames yet).",
                path: opened.path)
        }
        return summary
    }

    /// Only an HEVC-coded HEIC goes through offconvert's reader; AVIF is libheif's.
    private static func decodeHeif(
        _ opened: OpenedPhoto, options: DecodeOptions, cancellation: CancellationFlag
    ) throws(ConvertError) -> DecodedPhoto {
        if opened.format == .heic, let heif = opened.heif,
            let photo = try decodeHEVC(heif, path: opened.path, options: options, cancellation: cancellation)
        {
            return photo
        }
        return try decodeWithLibheif(
            opened.libheif(), format: opened.format, options: options, cancellation: cancellation)
    }

    /// Decodes an HEVC-coded HEIF with offconvert's own reader (``HeifFile``) and tile decoder,
    /// converting YCbCr to RGB itself; nil when the file is not one this path decodes exactly
    /// (AV1, alpha, `clap`, other chroma formats, damaged tiles), which libheif then judges.
    private static func decodeHEVC(
        _ file: HeifFile, path: String, options: DecodeOptions, cancellation: CancellationFlag
    ) throws(ConvertError) -> DecodedPhoto? {
        guard file.isHEVC(file.primaryID) else { return nil }
        let ids = options.allImages ? file.topLevelImageIDs : [file.primaryID]
        guard !ids.isEmpty, ids.allSatisfy(file.isHEVC) else { return nil }
        var photo = DecodedPhoto(format: .heic, frames: [], notes: [])
        for id in ids {
            if let size = file.codedSize(id) {
                try PixelLimit.check(width: size.width, height: size.height, limit: options.maxPixels, path: path)
            }
            let toneMapping = options.hdrStill?.toneMaps(file.nclx(id)) == true
            guard
                let decoded = try HeifYCbCrDecoder.decode(
                    file, item: id, threads: options.decodingThreads, maxPixels: options.maxPixels,
                    output: toneMapping ? .nativeAveraging422 : .native, cancellation: cancellation,
                    progress: id == file.primaryID ? options.progress : nil)
            else { return nil }
            try cancellation.check()
            if let still = HDRStill.apply(
                decoded.image, matrix: decoded.matrix, fullRange: decoded.fullRange, nclx: file.nclx(id),
                policy: options.hdrStill,
                measuring: id == file.primaryID, threads: max(1, options.decodingThreads))
            {
                photo.record(still, frameIndex: photo.frames.count)
                photo.frames.append(DecodedFrame(bitmap: still.bitmap, exif: file.exif(id), xmp: file.xmp(id)))
                continue
            }
            if let coding = keptHDRCoding(file.nclx(id), options: options) {
                let bitmap = decoded.image.rgbBitmap(matrix: decoded.matrix, fullRange: decoded.fullRange, icc: nil)
                photo.frames.append(
                    DecodedFrame(bitmap: bitmap, exif: file.exif(id), xmp: file.xmp(id), hdrCoding: coding))
                continue
            }
            var bitmap = decoded.image.rgbBitmap(
                matrix: decoded.matrix, fullRange: decoded.fullRange, icc: file.iccProfile(id))
            if bitmap.icc == nil, let nclx = file.nclx(id), let generated = ColorProfiles.icc(for: nclx) {
                bitmap.icc = generated.icc
                if let note = generated.note, !photo.notes.contains(note) { photo.notes.append(note) }
            }
            photo.frames.append(DecodedFrame(bitmap: bitmap, exif: file.exif(id), xmp: file.xmp(id)))
        }
        return photo
    }

    private static func decodeWithLibheif(
        _ context: HeifContext, format: PhotoFormat, options: DecodeOptions, cancellation: CancellationFlag
    ) throws(ConvertError) -> DecodedPhoto {
        let path = context.path
        let handles: [HeifImageHandle]
        if options.allImages {
            var list: [HeifImageHandle] = []
            for id in context.topLevelImageIDs(meta: nil) { list.append(try context.image(id: id)) }
            handles = list
        } else {
            handles = [try context.primaryImage()]
        }
        var photo = DecodedPhoto(format: format, frames: [], notes: [])
        for handle in handles {
            try PixelLimit.check(width: handle.width, height: handle.height, limit: options.maxPixels, path: path)
            var bitmap = try handle.decode(cancellation: cancellation)
            // An alpha image libheif leaves unattached even after HeifContext.reading's edit (its
            // size unreadable, or not AV1) is transparency lost: said, not dropped silently.
            let unattached = "transparency dropped: its alpha image has no size offconvert or libheif can read"
            if !handle.hasAlpha, handle.auxiliaryTypes.contains(where: HeifFile.alphaTypes.contains),
                !photo.notes.contains(unattached)
            {
                photo.notes.append(JobNote(fact: unattached))
            }
            let nclx = handle.nclx
            let coding = keptHDRCoding(nclx, options: options)
            if let still = HDRStill.apply(
                bitmap, nclx: nclx, policy: options.hdrStill, measuring: handle.isPrimary,
                threads: max(1, options.decodingThreads))
            {
                bitmap = still.bitmap
                photo.record(still, frameIndex: photo.frames.count)
            } else if coding != nil {
                bitmap.icc = nil
            } else if bitmap.icc == nil, let nclx, let generated = ColorProfiles.icc(for: nclx) {
                bitmap.icc = generated.icc
                if let note = generated.note, !photo.notes.contains(note) { photo.notes.append(note) }
            }
            photo.frames.append(DecodedFrame(bitmap: bitmap, exif: handle.exif, xmp: handle.xmp, hdrCoding: coding))
        }
        return photo
    }

    /// Gives a decoded PNG's frame the colour its chunks describe, by their precedence
    /// (``PNGColorChunks/description``): a cICP's HDR transfer is tone mapped (or kept, for an
    /// output that states it) as a HEIF's nclx is, and a cICP or gAMA/cHRM becomes an ICC profile,
    /// so `--color srgb` converts from it and other outputs carry it. The iCCP's profile is
    /// libpng's already; sRGB needs none.
    private static func describeColor(of photo: inout DecodedPhoto, chunks: PNGColorChunks, options: DecodeOptions) {
        guard var frame = photo.frames.first else { return }
        switch chunks.description {
        case .sRGB, .icc: return
        case .gammaAndChromaticities(let gamma, let chromaticities):
            guard let icc = ColorProfiles.icc(gamma: gamma, chromaticities: chromaticities) else {
                photo.notes.append(JobNote(fact: "its gAMA/cHRM colour description is unusable: read as sRGB"))
                return
            }
            frame.bitmap.icc = icc
        case .cicp(let nclx) where nclx.primaries.code == 1 && nclx.transfer.code == 13:
            frame.bitmap.icc = nil
        case .cicp(let nclx):
            if let still = HDRStill.apply(
                frame.bitmap, nclx: nclx, policy: options.hdrStill, measuring: true,
                threads: max(1, options.decodingThreads))
            {
                frame.bitmap = still.bitmap
                photo.record(still, frameIndex: 0)
            } else if let coding = keptHDRCoding(nclx, options: options) {
                frame.bitmap.icc = nil
                frame.hdrCoding = coding
            } else if let generated = ColorProfiles.icc(for: nclx) {
                frame.bitmap.icc = generated.icc
                if let note = generated.note, !photo.notes.contains(note) { photo.notes.append(note) }
            } else {
                photo.notes.append(
                    JobNote(
                        fact: "its cICP colour description (primaries \(nclx.primaries.code)) is unknown: read as sRGB")
                )
            }
        }
        photo.frames[0] = frame
    }

    /// The nclx `nclx` when a frame coded in it keeps its HDR code values for an output that
    /// states their transfer (``HDRStillPolicy/keepTransfer``); nil otherwise.
    private static func keptHDRCoding(_ nclx: NCLX?, options: DecodeOptions) -> NCLX? {
        guard let policy = options.hdrStill, policy == .keepTransfer, let nclx, HDRTransfer(nclx) != nil,
            !policy.toneMaps(nclx)
        else { return nil }
        return nclx
    }

    /// A JPEG XL: its first frame, upright (libjxl applies the codestream's orientation; the
    /// EXIF's is informational), tone mapped or kept as the policy says when it is coded in PQ
    /// or HLG, as a HEIF's is.
    private static func decodeJXL(path: String, options: DecodeOptions) throws(ConvertError) -> DecodedPhoto {
        let decoded = try JXLCodec.decode(readAll(path: path), maxPixels: options.maxPixels, path: path)
        var photo = DecodedPhoto(format: .jxl, frames: [], notes: decoded.notes.map(JobNote.init(fact:)))
        var frame = DecodedFrame(bitmap: decoded.bitmap, exif: decoded.exif, xmp: decoded.xmp)
        if let still = HDRStill.apply(
            decoded.bitmap, nclx: decoded.hdrCoding, policy: options.hdrStill, measuring: true,
            threads: max(1, options.decodingThreads))
        {
            frame.bitmap = still.bitmap
            photo.record(still, frameIndex: 0)
        } else if let coding = keptHDRCoding(decoded.hdrCoding, options: options) {
            frame.bitmap.icc = nil
            frame.hdrCoding = coding
        }
        photo.frames = [frame]
        return photo
    }

    private static func decodeJPEG(path: String, options: DecodeOptions, opened: OpenedPhoto?) throws(ConvertError)
        -> DecodedPhoto
    {
        let data = try readAll(path: path)
        opened?.sawJPEG(data)
        let decoder = try TurboJPEGHandle.decompressor()
        let header = try decoder.header(data, path: path)
        let (width, height) = (header.width, header.height)
        try PixelLimit.check(width: width, height: height, limit: options.maxPixels, path: path)
        let metadata = JPEGMarkers.metadata(data)
        let orientation = metadata.exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        // Shrink on load: the IDCT can decode at a fraction of the full size for a fraction of
        // the work. The plan is made for the upright full size (so the output size does not
        // depend on how the picture was decoded), and the scale chosen is the smallest whose
        // picture still has every pixel the output needs; the Lanczos pass does the rest.
        var plan: ResizePlan?
        var scale = JPEGScale.full
        if options.resize != nil || options.maxLongEdge != nil {
            let swaps = orientation >= 5
            let full = ResizePlan(
                sourceWidth: swaps ? height : width, sourceHeight: swaps ? width : height, resize: options.resize,
                maxLongEdge: options.maxLongEdge)
            plan = full
            scale = JPEGScale.smallest(for: full)
        }
        let size = (width: scale.scaled(width), height: scale.scaled(height))
        var (picture, notes) = try jpegPicture(
            data, header: header, size: size, icc: metadata.icc, strict: options.strict, decoder: decoder, path: path)
        picture = picture.applyingOrientation(orientation)
        var frames = [
            DecodedFrame(bitmap: picture, exif: metadata.exif, xmp: metadata.xmp, iptc: IPTC.block(inJPEG: data))
        ]
        let views = MPFIndex(data)?.views ?? []
        if options.allImages {
            frames += try jpegViews(views, of: data, first: (width, height), scale: scale, options: options, path: path)
        } else if !views.isEmpty {
            notes.append(viewsLeftOutNote(views.count))
        }
        var photo = DecodedPhoto(format: .jpeg, frames: frames, notes: notes)
        photo.decodeScale = scale
        photo.plan = plan
        return photo
    }

    /// The JPEG's picture at `size` (its own or a DCT-scaled one) as RGB, and what to tell the
    /// user: a damaged stream decoded as far as it goes (unless `strict`), a CMYK one converted.
    private static func jpegPicture(
        _ data: [UInt8], header: JPEGHeader, size: (width: Int, height: Int), icc: [UInt8]?, strict: Bool,
        decoder: TurboJPEGHandle, path: String
    ) throws(ConvertError) -> (Bitmap, [JobNote]) {
        var notes: [JobNote] = []
        let rgb: [UInt8]
        var profile = icc
        if header.colorSpace.isInk {
            let decoded = try decoder.decodeCMYK(
                data, width: size.width, height: size.height, strict: strict, path: path)
            if let damage = decoded.damage { notes.append(damage.note) }
            let converted = CMYKConversion.rgb(
                cmyk: decoded.pixels, pixelCount: size.width * size.height, inverted: JPEGMarkers.hasAdobeSegment(data),
                profile: icc)
            (rgb, profile) = (converted.rgb, converted.icc)
            notes.append(converted.note)
        } else if strict {
            rgb = try decoder.decodeRGB(data, width: size.width, height: size.height, path: path)
        } else {
            let decoded = try decoder.decodeRGBTolerating(data, width: size.width, height: size.height, path: path)
            rgb = decoded.pixels
            if let damage = decoded.damage { notes.append(damage.note) }
        }
        let bitmap = Bitmap(
            width: size.width, height: size.height, channels: 3, samples: .eight(rgb), sourceBitDepth: 8, icc: profile)
        return (bitmap, notes)
    }
}
