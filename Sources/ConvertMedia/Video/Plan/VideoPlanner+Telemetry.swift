import ConvertCore
internal import FFmpegLayer

extension VideoPlanner {
    /// The telemetry tracks cameras and drones write beside the picture, by their sample entry's
    /// four-character code, with the name a note gives them. No lane is ever planned for a data
    /// track, so none reaches a shared copy; these are named in the notes because they log where
    /// the video was made (GoPro's GPMF GPS5/GPS9, DJI's and Sony's per-frame records, the
    /// camera-motion metadata of 360° cameras and Street View uploads).
    static let telemetryTracks: [String: String] = [
        "gpmd": "GoPro GPMF", "djmd": "DJI", "dbgi": "DJI debug", "rtmd": "Sony", "camm": "camera motion",
    ]

    /// The telemetry tracks of ``telemetryTracks`` whose samples offconvert does not read: only
    /// GoPro's GPMF is parsed for its GPS. No public sample of the others was available to build
    /// a reader from, so their GPS cannot be counted or removed, only assumed.
    static let unreadTelemetryTracks: Set<String> = Set(telemetryTracks.keys).subtracting(["gpmd"])

    /// Whether `stream` is a telemetry track ``telemetryTracks`` knows.
    static func isTelemetry(_ stream: StreamSnapshot) -> Bool {
        stream.kind == .data && telemetryTracks[stream.codecTag] != nil
    }

    /// The note on the telemetry tracks among `streams` left out of the output ("1 telemetry
    /// track left out (GoPro GPMF gpmd)"), nil when there is none.
    static func telemetryNote(_ streams: [StreamSnapshot]) -> String? {
        let tracks = streams.filter(isTelemetry)
        guard !tracks.isEmpty else { return nil }
        let names = tracks.map { "\(telemetryTracks[$0.codecTag] ?? "") \($0.codecTag)" }
        let count = tracks.count == 1 ? "1 telemetry track" : "\(tracks.count) telemetry tracks"
        return "\(count) left out (\(names.joined(separator: ", ")))"
    }

    /// Notes on the tracks left out that are neither sound, subtitles, covers nor telemetry, by
    /// what they are: "1 timecode track left out", "3 timed metadata tracks (mebx) left out",
    /// "1 data track (xyz1) left out", "1 video track (hevc) left out", "2 attachments (ttf) left out".
    static func otherTrackNotes(_ streams: [StreamSnapshot]) -> [String] {
        var groups: [(kind: String, names: [String], count: Int)] = []
        for stream in streams {
            let name = stream.codecName == "none" || stream.codecName.isEmpty ? stream.codecTag : stream.codecName
            let kind: (singular: String, named: Bool)
            switch stream.kind {
            case .data where stream.codecTag == "tmcd": kind = ("timecode track", false)
            case .data where stream.codecTag == "mebx": kind = ("timed metadata track", true)
            case .data: kind = ("data track", true)
            case .video: kind = ("video track", true)
            case .attachment: kind = ("attachment", true)
            default: kind = ("other track", false)
            }
            let names = kind.named && !name.isEmpty ? [name] : []
            if let index = groups.firstIndex(where: { $0.kind == kind.singular }) {
                groups[index].count += 1
                if let name = names.first, !groups[index].names.contains(name) { groups[index].names.append(name) }
            } else {
                groups.append((kind.singular, names, 1))
            }
        }
        return groups.map { group in
            let names = group.names.isEmpty ? "" : " (\(group.names.joined(separator: ", ")))"
            return "\(group.count) \(group.kind)\(group.count == 1 ? "" : "s")\(names) left out"
        }
    }
}
