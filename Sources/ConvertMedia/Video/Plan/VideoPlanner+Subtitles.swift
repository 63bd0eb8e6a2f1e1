import ConvertCore

extension VideoPlanner {
    /// The subtitle tracks kept (copied where the container takes the codec; text subtitles
    /// written again as `mov_text` for MP4 and MOV, as WebVTT for WebM) and a note on those left
    /// out, saying why.
    /// A track of a drone's telemetry (DJI's SRT) is a location: left out unless it is kept.
    static func subtitlePlan(
        _ choice: SubtitleChoice, keepLocation: Bool, media: MediaSnapshot, format: OutputFormat, cut: Cut?
    ) -> (lanes: [LanePlan], notes: [JobNote]) {
        let streams = media.streams.filter { $0.kind == .subtitle }
        guard !streams.isEmpty else { return ([], []) }
        let count = streams.count == 1 ? "1 subtitle track" : "\(streams.count) subtitle tracks"
        if choice == .drop {
            return (
                [], [JobNote(.subtitlesDropped, "\(count) left out", detail: .subtitlesDropped(tracks: streams.count))]
            )
        }
        var lanes: [LanePlan] = []
        var leftOut: [String] = []
        var telemetry: [String] = []
        for (position, stream) in streams.enumerated() {
            if media.telemetrySubtitles.contains(stream.index) && !keepLocation {
                telemetry.append("\(position + 1)")
            } else if accepts(format, subtitleCodec: stream.codecName) {
                lanes.append(.copy(stream))
            } else if let text = TextSubtitleCodec(for: format), textCodecs.contains(stream.codecName),
                stream.decodable
            {
                lanes.append(.subtitle(stream, text))
            } else {
                let name = [stream.language, subtitleName(stream.codecName)].compactMap { $0 }.joined(separator: " ")
                leftOut.append("\(position + 1): \(name)")
            }
        }
        var notes: [JobNote] = []
        if !telemetry.isEmpty {
            let tracks = telemetry.count == 1 ? "subtitle track" : "subtitle tracks"
            notes.append(
                "\(tracks) \(telemetry.joined(separator: ", ")) (DJI telemetry) left out: it records where the video was made"
            )
        }
        if !lanes.isEmpty {
            let converted = lanes.filter { if case .subtitle = $0 { true } else { false } }.count
            let kept = lanes.count == 1 ? "1 subtitle track kept" : "\(lanes.count) subtitle tracks kept"
            let codec = TextSubtitleCodec(for: format)?.displayName ?? ""
            var note =
                converted == 0 ? kept : kept + " (\(converted == lanes.count ? "as" : "\(converted) made") \(codec))"
            if cut != nil { note += ", cut with the picture" }
            notes.append(note)
        }
        if !leftOut.isEmpty {
            let tracks = leftOut.count == 1 ? "subtitle track" : "\(leftOut.count) subtitle tracks"
            notes.append("\(tracks) left out (\(leftOut.joined(separator: ", "))): \(carriedNote(format))")
        }
        return (lanes, notes)
    }

    /// Text subtitle codecs written again as `mov_text` in MP4 and MOV, as WebVTT in WebM.
    static let textCodecs: Set<String> = ["subrip", "ass", "ssa", "webvtt", "text"]

    /// Whether `format` carries subtitles in the codec FFmpeg calls `codec`, copied as they are.
    static func accepts(_ format: OutputFormat, subtitleCodec codec: String) -> Bool {
        switch format.muxer {
        case .matroska:
            return ["subrip", "ass", "ssa", "webvtt", "hdmv_pgs_subtitle", "dvd_subtitle", "dvb_subtitle", "text"]
                .contains(codec)
        case .mp4, .mov: return codec == "mov_text"
        case .webm: return codec == "webvtt"
        default: return false
        }
    }

    /// What `format` can carry, for the note on a subtitle track left out.
    private static func carriedNote(_ format: OutputFormat) -> String {
        switch format.muxer {
        case .mp4, .mov:
            return
                "\(format.fileExtension.uppercased()) carries text subtitles only (as mov_text); MKV keeps every kind"
        case .webm: return "WebM carries only text subtitles (as WebVTT); MKV keeps every kind"
        case .matroska: return "Matroska has no place for this kind"
        default: return "\(format.fileExtension.uppercased()) has no subtitles"
        }
    }

    /// A subtitle codec as people know it (`SRT`, `PGS`), for notes.
    private static func subtitleName(_ codec: String) -> String {
        let names = [
            "subrip": "SRT", "ass": "ASS", "ssa": "SSA", "webvtt": "WebVTT", "hdmv_pgs_subtitle": "PGS",
            "dvd_subtitle": "VobSub", "dvb_subtitle": "DVB", "mov_text": "mov_text", "text": "text",
        ]
        return names[codec] ?? codec
    }
}
