import FoundationEssentials
import Glibc

/// Splits a motion photo into its parts without re-encoding either.
///
/// - ``extractVideo(_:limits:)`` writes the embedded MP4 as it is stored (every packet byte-identical),
///   with its movie, track and media creation times set to the photo's capture time.
/// - ``stripVideo(_:limits:)`` writes the still: the file up to where the motion part begins, with the
///   XMP properties pointing at the video removed; every other byte is the original's.
///
/// ```swift
/// let result = try await MotionPhotoEditor.extractVideo(
///     MotionPhotoRequest(input: "PXL_0001.MP.jpg", output: OutputLocation(path: "PXL_0001.mp4"))).result()
/// ```
public enum MotionPhotoEditor {
    /// The note every photo conversion of a motion photo carries.
    static let motionNotKeptNote = "motion part not kept (only the still was converted)"

    /// Starts writing the embedded video of `request.input` as an MP4.
    ///
    /// A photo without motion gives a result with no output and a note. Errors: `.unsupported`
    /// `motion.missing` (the metadata points at a video that is not there, or an MP4 whose
    /// samples were cut out); `.input` and `.request` errors as for any output. The job runs on
    /// the threads of `limits`.
    public static func extractVideo(_ request: MotionPhotoRequest, limits: ConversionLimits = .shared)
        -> ConversionJob
    {
        ConversionJob.start(path: request.input, admission: limits.admission) { reporter in
            reporter.report(.probing, 0)
            return try await runBlocking(on: limits.codec) { flag in
                let file = try ImageDecoder.readAll(path: request.input)
                guard let photo = MotionPhoto.find(in: file) else { return notMotion(request.input) }
                guard let range = photo.video else {
                    throw ConvertError(
                        code: .motionMissing,
                        message:
                            "\(request.input) has no usable video: \(photo.problem ?? "the embedded video is missing"); nothing was written.",
                        path: request.input)
                }
                try flag.check()
                var video = Array(file[range])
                var notes: [String] = []
                if let date = CaptureDate.of(photo: file) {
                    MovieTimes.set(date.secondsSince1970, in: &video)
                    notes.append(
                        "dated \(date.text) (the photo's capture time\(date.hasOffset ? "" : ", read as UTC"))")
                }
                return try write(video, request: request, notes: notes)
            }
        }
    }

    /// Starts writing the still of `request.input` without its motion part.
    ///
    /// A photo without motion gives a result with no output and a note. The job runs on the
    /// threads of `limits`.
    public static func stripVideo(_ request: MotionPhotoRequest, limits: ConversionLimits = .shared)
        -> ConversionJob
    {
        ConversionJob.start(path: request.input, admission: limits.admission) { reporter in
            reporter.report(.probing, 0)
            return try await runBlocking(on: limits.codec) { _ in
                let file = try ImageDecoder.readAll(path: request.input)
                guard let photo = MotionPhoto.find(in: file) else { return notMotion(request.input) }
                let (still, notes) = self.still(of: file, photo)
                guard still.count < file.count else {
                    throw ConvertError(
                        code: .motionMissing,
                        message:
                            "\(request.input): the motion part cannot be removed: \(photo.problem ?? "it is not where the metadata says"); nothing was written.",
                        path: request.input)
                }
                return try write(still, request: request, notes: notes)
            }
        }
    }

    /// The still without the motion part, and what was done to it.
    package static func still(of file: [UInt8], _ photo: MotionPhoto) -> (bytes: [UInt8], notes: [String]) {
        let kept = Array(file[0..<photo.stillEnd])
        let kind = MediaSniffer.kind(of: Array(kept.prefix(64)))
        if kind.isHEIF {
            // The XMP is edited where it lies first: the splices move what follows them.
            var (still, notes) = heifStill(kept, notes: [])
            for splice in photo.splices.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
                still.replaceSubrange(splice.range, with: splice.replacement)
            }
            return (still, ["removed \(file.count - still.count) bytes of motion data"] + notes)
        }
        var notes = ["removed \(file.count - photo.stillEnd) bytes of motion data"]
        guard kind == .image(.jpeg) else { return (kept, notes) }
        guard
            let segment = JPEGMarkers.segments(kept).first(where: {
                $0.marker == 0xE1 && kept[$0.payload].starts(with: JPEGMarkers.xmpHeader)
            })
        else { return (kept, notes) }
        let packet = Array(kept[segment.payload].dropFirst(JPEGMarkers.xmpHeader.count))
        guard let edited = MotionXMP.removingPointers(from: packet) else {
            notes.append("the XMP could not be edited and was left as it was")
            return (kept, notes)
        }
        let payload = JPEGMarkers.xmpHeader + edited
        let length = payload.count + 2
        let replacement = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        notes.append("motion pointers removed from the XMP")
        return (
            Array(kept[..<segment.whole.lowerBound]) + replacement + Array(kept[segment.whole.upperBound...]), notes
        )
    }

    /// A HEIF still with the motion pointers taken out of its XMP items (`mime` items of type
    /// `application/rdf+xml`), each edited where it lies and padded with spaces to its length
    /// (XML allows whitespace after the packet), so every other byte and every offset stays.
    private static func heifStill(_ kept: [UInt8], notes: [String]) -> (bytes: [UInt8], notes: [String]) {
        var notes = notes
        guard let meta = try? HeifMeta(source: MemoryByteSource(bytes: kept)) else { return (kept, notes) }
        var out = kept
        for id in meta.xmpItems {
            guard let ranges = meta.fileRanges(of: id) else { continue }
            let packet = ranges.flatMap { kept[Int($0.lowerBound)..<Int($0.upperBound)] }
            guard let edited = MotionXMP.removingPointers(from: packet), edited.count < packet.count else { continue }
            var replacement = edited + [UInt8](repeating: 0x20, count: packet.count - edited.count)
            for range in ranges {
                let count = Int(range.upperBound - range.lowerBound)
                out.replaceSubrange(Int(range.lowerBound)..<Int(range.upperBound), with: replacement.prefix(count))
                replacement.removeFirst(count)
            }
            if !notes.contains("motion pointers removed from the XMP") {
                notes.append("motion pointers removed from the XMP")
            }
        }
        return (out, notes)
    }

    /// An ordinary photo in a folder of motion photos is no failure: nothing to do, nothing
    /// written, and nothing charged (a job with no output costs no free conversion).
    private static func notMotion(_ path: String) -> JobResult {
        JobResult(
            inputPath: path, outputs: [],
            notes: [JobNote(fact: "not a motion photo (no embedded video); nothing written")])
    }

    private static func write(_ bytes: [UInt8], request: MotionPhotoRequest, notes: [String]) throws(ConvertError)
        -> JobResult
    {
        guard let destination = request.output.path else {
            throw ConvertError(code: .outputMissing, message: "No output path was given.", path: request.input)
        }
        let stage = try StagedOutput(destination: destination)
        try ImageEncoder.writeFile(bytes, to: stage.temporaryPath, displayPath: destination)
        let output = try stage.commit(
            overwrite: request.output.overwrite, renumber: request.output.mayRenumber,
            gate: request.output.placementGate)
        return JobResult(inputPath: request.input, outputs: [output], notes: JobNote.facts(notes))
    }
}
