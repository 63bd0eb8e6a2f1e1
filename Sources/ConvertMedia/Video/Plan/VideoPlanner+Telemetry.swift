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
}
