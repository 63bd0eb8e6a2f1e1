import FoundationEssentials
import Glibc

extension PhotoConverter {
    /// JPEG → JPEG at full size without a bitmap: when nothing needs RGB (no resize, no colour
    /// conversion, no size target) and the file holds one picture (no MPF views, no gain map),
    /// ``JPEGTranscoder`` re-encodes it from the input file to the staged output a band of rows
    /// at a time, turned upright by its EXIF orientation. A 200 MP photo then needs a few MB
    /// instead of its 600 MB bitmap, and a 4:2:0 one keeps its chroma samples as they are (no
    /// RGB round trip). Returns nil when the photo does not qualify; the general path takes it.
    static func streamedJPEG(
        _ request: PhotoRequest, opened: OpenedPhoto, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard opened.format == .jpeg, let plan = try StreamedJPEGPlan(request) else { return nil }
        // This path never holds the whole file: the head it read gives the XMP, the open
        // descriptor the trailer's last bytes.
        opened.sawJPEGHead(xmp: plan.head.xmp, file: plan.input)
        let (head, transcoder, source) = (plan.head, plan.transcoder, plan.transcoder.source)
        try PixelLimit.check(
            width: source.width, height: source.height, limit: request.maxPixels, path: request.inputPath)
        let turned = head.orientation >= 5
        let (width, height) = turned ? (source.height, source.width) : (source.width, source.height)
        var notes: [JobNote] = []
        let metadata = OutputMetadata(exif: head.exif, xmp: head.xmp, iptc: head.iptc, policy: request.metadata)
            .withPixelSize(width: width, height: height).carried(by: .jpeg)
        notes += metadata.notes
        var icc = head.icc
        if let profile = icc, ColorProfiles.channelCount(profile) != 3 {
            icc = nil
            notes.append("non-RGB colour profile dropped")
        }
        let segments = ImageEncoder.jpegSegments(exif: metadata.exif, xmp: metadata.xmp, iptc: metadata.iptc, icc: icc)
        notes += segments.notes
        reporter.report(.decoding, 0)
        let destination = try outputPaths(for: request, count: 1)[0]
        let output = try write(to: destination, for: request) {
            (temporary, display) throws(ConvertError) in
            try transcode(
                transcoder, to: temporary, display: display, quality: request.quality, orientation: head.orientation,
                segments: segments.bytes, reporter: reporter, cancellation: cancellation)
        } cancellation: {
            cancellation
        }
        if let damage = damageNote(transcoder.damage, height: source.height, stray: head.strayBytes) {
            notes.append(damage)
        }
        reporter.report(.writing, 1)
        return JobResult(inputPath: request.inputPath, outputs: [output], notes: notes, location: metadata.location)
    }

    /// What the streamed path holds for the JPEG at `path` (``JPEGTranscoder/Source/workingBytes(orientation:)``),
    /// or nil when it does not take the photo (the general path then converts it).
    package static func streamedJPEGWorkingBytes(path: String, request: PhotoRequest) -> Int64? {
        var request = request
        request.inputPath = path
        guard let plan = try? StreamedJPEGPlan(request) else { return nil }
        return plan.transcoder.source.workingBytes(orientation: plan.head.orientation)
    }

    /// Runs `transcoder` into the file at `path` band by band, checking for cancellation between bands.
    private static func transcode(
        _ transcoder: JPEGTranscoder, to path: String, display: String, quality: Int, orientation: Int,
        segments: [UInt8],
        reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) {
        let output = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw .fileSystem(errno, action: "write", path: display) }
        defer { close(output) }
        try transcoder.start(
            output: output, quality: quality, orientation: orientation, segments: segments, displayPath: display)
        var bands = 0
        while true {
            try cancellation.check()
            let step = try transcoder.step(displayPath: display)
            if step.done { return }
            bands += 1
            if bands % 32 == 0 { reporter.report(.encoding, 0.9 * step.progress) }
        }
    }

    /// The note for what libjpeg repaired, as the general path words it (``JPEGDamage``).
    /// Stray bytes in the headers (`stray`) are named when they are the one thing libjpeg warned about.
    private static func damageNote(
        _ damage: JPEGTranscoder.Damage, height: Int, stray: (count: Int, marker: UInt8)?
    ) -> String? {
        guard damage.warnings > 0 else { return nil }
        if let stray, damage.warnings == 1, !damage.endedEarly {
            return JPEGDamage.strayBytesNote(count: stray.count, marker: stray.marker)
        }
        let decoded = damage.endedEarly && height > 0 ? Double(damage.rowsBeforeEnd) / Double(height) : nil
        return JPEGDamage(truncated: damage.endedEarly, decodedFraction: decoded).note
    }
}

/// What the streamed path needs to start: the input opened, its head read and its frame
/// header parsed, once the request and the photo are known to qualify.
private struct StreamedJPEGPlan {
    let input: InputDescriptor
    let head: StreamedJPEGHead
    let transcoder: JPEGTranscoder

    /// The plan for `request` (whose input is a JPEG), or nil when the path does not take it: a
    /// resize, colour conversion, size target or frame choice, other images in the file (MPF,
    /// a gain map), or a frame the transcoder does not take (see ``JPEGTranscoder/Source/isTranscodable(orientation:)``).
    init?(_ request: PhotoRequest) throws(ConvertError) {
        guard request.format == .jpeg, request.maxLongEdge == nil, request.resize == nil, request.color == .keep,
            request.targetByteCount == nil, (request.frame ?? 1) == 1
        else { return nil }
        input = try InputDescriptor(path: request.inputPath)
        guard let head = try StreamedJPEGHead(input, path: request.inputPath), !head.holdsOtherImages else {
            return nil
        }
        self.head = head
        transcoder = try JPEGTranscoder(input: input.descriptor, strict: request.strict, path: request.inputPath)
        guard transcoder.source.isTranscodable(orientation: head.orientation) else { return nil }
    }
}

/// A read-only descriptor of a photo the streamed path reads, closed in `deinit`. Its reads
/// as a ``ByteSource`` are positional, so the decoder's offset is left where it is.
///
/// Sendable, as a ``ByteSource`` is: its stored values never change after `init`.
private final class InputDescriptor: ByteSource {
    let descriptor: Int32
    let size: UInt64

    init(path: String) throws(ConvertError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ConvertError.opening(path, errno: errno) }
        var status = stat()
        size = fstat(descriptor, &status) == 0 ? UInt64(max(0, status.st_size)) : 0
    }

    func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
        try FileByteSource.read(descriptor, size: size, at: offset, count: count)
    }

    deinit { close(descriptor) }
}

/// The metadata segments at the head of a JPEG (everything before its first scan), read with
/// `pread` so that the descriptor's offset stays at the start for the decoder.
private struct StreamedJPEGHead {
    var exif: [UInt8]?
    var xmp: [UInt8]?
    var icc: [UInt8]?
    var iptc: [UInt8]?
    var orientation: Int
    /// Whether the file holds more than one picture: an MPF index (stereo views, a gain map) or
    /// XMP naming a gain map. The general path reads those.
    var holdsOtherImages: Bool
    /// Stray bytes between its header segments (libjpeg skips them with a warning), if any.
    var strayBytes: (count: Int, marker: UInt8)?

    /// The head of the file on `input`, or nil when its markers do not reach a scan within 16 MiB.
    init?(_ input: InputDescriptor, path: String) throws(ConvertError) {
        var bytes: [UInt8] = []
        var wanted = 256 * 1024
        while true {
            bytes = try Self.read(input, count: wanted, path: path)
            if JPEGMarkers.scanStart(bytes) != nil { break }
            guard bytes.count == wanted, wanted < 16 << 20 else { return nil }
            wanted *= 4
        }
        let metadata = JPEGMarkers.metadata(bytes)
        (exif, xmp, icc) = (metadata.exif, metadata.xmp, metadata.icc)
        iptc = IPTC.block(inJPEG: bytes)
        let stated = exif.flatMap { Exif(block: $0)?.orientation } ?? 1
        orientation = (1...8).contains(stated) ? stated : 1
        let mpf = Array("MPF".utf8) + [0]
        let hasIndex = JPEGMarkers.segments(bytes).contains { $0.marker == 0xE2 && bytes[$0.payload].starts(with: mpf) }
        let namesGainMap =
            xmp.map { packet in
                let text = String(decoding: packet, as: UTF8.self)
                return text.contains("hdrgm:") || text.contains("GContainer")
            } ?? false
        holdsOtherImages = hasIndex || namesGainMap
        strayBytes = JPEGMarkers.strayHeaderBytes(bytes)
    }

    private static func read(_ input: InputDescriptor, count: Int, path: String) throws(ConvertError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(input.descriptor, base + filled, count - filled, off_t(filled))
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .fileSystem(errno, action: "read", path: path) }
            if got == 0 { break }
            filled += got
        }
        buffer.removeSubrange(filled...)
        return buffer
    }
}
