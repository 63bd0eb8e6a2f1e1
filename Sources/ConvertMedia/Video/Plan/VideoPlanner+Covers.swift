import ConvertCore
internal import FFmpegLayer

extension VideoPlanner {
    /// The cover art (attached pictures: ID3 APIC, FLAC PICTURE, MP4 `covr`, a Matroska
    /// attachment) copied where the format holds it (MP3, FLAC, M4A, MP4, MOV and MKV take JPEG
    /// and PNG), or a note saying why it was left out. `lanes` are the output's other lanes: a
    /// MOV holds a cover only beside codecs FFmpeg's MP4 writer takes (see ``movWriter(_:lanes:)``).
    static func coverArt(media: MediaSnapshot, format: OutputFormat, beside lanes: [LanePlan] = [])
        -> (lanes: [LanePlan], notes: [String])
    {
        let pictures = media.streams.filter(\.isAttachedPicture)
        guard !pictures.isEmpty else { return ([], []) }
        let problem = coverProblem(format, beside: lanes)
        let kept = problem == nil ? pictures.filter { ["mjpeg", "png"].contains($0.codecName) } : []
        var notes = kept.isEmpty ? [] : [kept.count == 1 ? "cover art kept" : "\(kept.count) pictures kept"]
        if kept.count < pictures.count { notes.append("cover art left out: \(problem ?? "not JPEG or PNG")") }
        return (kept.map { .copy($0) }, notes)
    }

    /// Why `format` cannot hold a cover beside `lanes`, or nil when it can.
    private static func coverProblem(_ format: OutputFormat, beside lanes: [LanePlan]) -> String? {
        switch format.muxer {
        case .mp3, .flac, .ipod, .mp4, .matroska:
            return nil
        case .mov:
            let foreign = lanes.contains { $0.isCopy && movOnlyCodecs.contains($0.stream.codec) }
            return foreign ? "FFmpeg writes it in a MOV only beside MP4 codecs, not ProRes, Motion JPEG or PCM" : nil
        default:
            let name =
                format.muxer == .opus ? "Opus" : format.muxer == .webm ? "WebM" : format.fileExtension.uppercased()
            return "\(name) has no place for it"
        }
    }

    /// Codecs a MOV copies that FFmpeg 5.1's MP4 writer refuses (ProRes, PCM) or labels as
    /// MPEG-4 video (Motion JPEG, which QuickTime would then not play).
    private static let movOnlyCodecs: [CodecID] = [.prores, .mjpeg, .pcmS16LE]

    /// The writer of a `format` output of `lanes`. FFmpeg 5.1's MOV muxer writes neither a Dolby
    /// Vision configuration box (`dvcC`/`dvvC`) nor cover art (its MOV mode has no `ilst`, and it
    /// drops an attached picture); its MP4 muxer writes both. A MOV with a copied Dolby Vision
    /// stream or a cover is therefore written by the MP4 muxer under QuickTime's brand
    /// (`ftyp qt  `), so players still find them.
    static func movWriter(_ format: OutputFormat, lanes: [LanePlan]) -> OutputFormat {
        guard format.muxer == .mov,
            lanes.contains(where: {
                $0.stream.isAttachedPicture
                    || ($0.isCopy && $0.stream.kind == .video && $0.stream.doviProfile != nil)
            })
        else { return format }
        return OutputFormat(
            muxer: .mp4, fileExtension: format.fileExtension,
            options: format.options + [.init(key: "brand", value: "qt  ")])
    }

    /// "chapters left out: WAV has no place for them" when the source has chapters in the part
    /// kept and `format` has no place for them; nothing otherwise (FLAC and Opus keep them as
    /// Vorbis comments).
    static func chapterNotes(media: MediaSnapshot, format: OutputFormat, cut: Cut?) -> [String] {
        let kept = media.chapters.compactMap { $0.clipped(from: cut?.start ?? 0, to: cut.map { $0.start + $0.length }) }
        guard !kept.isEmpty else { return [] }
        switch format.muxer.chapterPlace {
        case .chapters:
            return []
        case .vorbisComments:
            let left = kept.count - Chapter.vorbisCommentLimit
            return left > 0
                ? ["\(left) chapter\(left == 1 ? "" : "s") left out: Vorbis comments number 1000 at most"] : []
        case .none:
            return ["chapters left out: \(format.fileExtension.uppercased()) has no place for them"]
        }
    }
}
