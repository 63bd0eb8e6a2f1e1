import ConvertCore
import Foundation

/// What every pass of one compress encode shares, and the ``VideoPlan`` of each pass: pass 1
/// (statistics), the normal-quality encode, pass 2 at a bitrate.
struct VideoCompressEncode {
    var request: VideoCompressRequest
    var probe: VideoCompressProbe
    var plan: VideoSizePlanner.EncodePlan
    var destination: String
    var range: ToneMapDecision.Action
    var filter: String
    var stats: StatsFile
    var audioLanes: [LanePlan]
    var audioNotes: [String]

    init(_ request: VideoCompressRequest, probe: VideoCompressProbe, plan: VideoSizePlanner.EncodePlan)
        throws(ConvertError)
    {
        self.request = request
        self.probe = probe
        self.plan = plan
        destination = try VideoJob.destination(input: request.input, output: request.output, format: .video(.mp4))
        range = try ToneMapDecision.decide(for: probe.video, targetCarriesHDR: false, path: request.input)
        filter = probe.cutting(Self.videoFilter(plan: plan, probe: probe, range: range))
        stats = try StatsFile(destination: destination)
        (audioLanes, audioNotes) = Self.audio(plan.audio, lane: probe.audio, probe: probe)
    }

    /// The sound's lane as the size plan says (copied, or AAC at its bitrate), with its note.
    private static func audio(
        _ audio: VideoSizePlanner.AudioPlan, lane: LanePlan?,
        probe: VideoCompressProbe
    ) -> ([LanePlan], [String]) {
        switch (audio, lane) {
        case (.copy, .some(let lane)):
            return ([lane], ["audio copied without re-encoding"])
        case (.encode(let bitrate, let channels), .some(let lane)):
            let encoding = AudioEncoding(
                encoder: "aac", sampleRate: nil, channels: Int32(channels), bitRate: Int64(bitrate))
            return (
                [.audio(lane.stream, probe.cutting(encoding))],
                ["audio re-encoded to AAC at \(bitrate / 1000) kb/s, \(channels == 1 ? "mono" : "stereo")"]
            )
        default:
            return ([], [])
        }
    }

    /// Scale (to the planned size, in stored orientation: MP4 keeps the display matrix), frame
    /// rate, then tone map or 8-bit 4:2:0. Scaling first makes the tone map cheaper.
    static func videoFilter(plan: VideoSizePlanner.EncodePlan, probe: VideoCompressProbe, range: ToneMapDecision.Action)
        -> String
    {
        let (width, height) = probe.video.isSideways ? (plan.height, plan.width) : (plan.width, plan.height)
        var filters = ["scale=w=\(width):h=\(height)"]
        if plan.frameRate < probe.source.frameRate - 0.01 {
            filters.append("fps=\(String(format: "%.3f", plan.frameRate))")
        }
        if case .toneMap(let from) = range {
            filters.append(ToneMapDecision.filter(for: from))
        } else {
            filters.append("format=yuv420p")
        }
        return filters.joined(separator: ",")
    }

    /// The plan of one pass: the x264 lane with `options`, the sound, into an MP4.
    func passPlan(_ options: [OutputFormat.Option], keepLocation: Bool) -> VideoPlan {
        let video = LanePlan.video(
            probe.video,
            VideoEncoding(
                encoder: "libx264", options: options, filter: filter,
                dynamicRange: range, keepsDisplayMatrix: true))
        return probe.plan(.video(.mp4), lanes: [video] + audioLanes, keepLocation: keepLocation)
    }

    /// The fast pass 1 of a tight target: statistics only, into a plain MP4 (no faststart rewrite)
    /// whose sound is measured.
    var firstPassPlan: VideoPlan {
        var plan = passPlan(firstPassOptions, keepLocation: false)
        plan.format = OutputFormat(muxer: .mp4, fileExtension: "", options: [])
        return plan
    }

    /// The normal-quality encode, which is also pass 1: it writes the statistics a pass 2 reads
    /// when it comes out over the target.
    var qualityPlan: VideoPlan { passPlan(qualityOptions, keepLocation: request.keepLocation) }

    /// Pass 2 at `bitrate`.
    func secondPassPlan(bitrate: Int) -> VideoPlan {
        passPlan(secondPassOptions(bitrate: bitrate), keepLocation: request.keepLocation)
    }

    /// Whether the plan keeps the source's picture and frame rate: the target is ample, and
    /// the normal quality may fit. A plan that had to shrink the picture or drop frames has a
    /// tight target, and spending all of it is what keeps the most of the picture.
    var keepsPicture: Bool {
        let top = VideoSizePlanner.candidateHeights(
            sourceWidth: probe.source.width, sourceHeight: probe.source.height,
            maxHeight: request.maxHeight)[0]
        return plan.height == top && plan.frameRate >= probe.source.frameRate - 0.01
    }

    /// The heights allowed above the plan's, largest first: where a tight plan may grow when pass
    /// 1 shows the picture easy to code. None when the plan already has the largest height or had
    /// to lower the frame rate too (a target that tight leaves nothing to spare).
    var largerHeights: [Int] {
        guard plan.frameRate >= probe.source.frameRate - 0.01 else { return [] }
        return VideoSizePlanner.candidateHeights(
            sourceWidth: probe.source.width, sourceHeight: probe.source.height,
            maxHeight: request.maxHeight
        )
        .filter { $0 > plan.height }
    }

    /// The fast pass 1 of a tight target, at the planned bitrate, which makes pass 2 land
    /// closest. x264's fast first pass is several times quicker and the second pass is as good.
    var firstPassOptions: [OutputFormat.Option] {
        [
            .init(key: "preset", value: "medium"), .init(key: "b", value: "\(plan.videoBitrate)"),
            .init(key: "maxrate", value: "\(plan.maxRate)"), .init(key: "bufsize", value: "\(plan.bufferSize)"),
            .init(key: "flags", value: "+pass1"), .init(key: "stats", value: stats.path),
            .init(key: "fastfirstpass", value: "1"),
        ]
    }

    /// The normal-quality encode: CRF 23, as `send-to-windows`, but at x264's `medium`: under a
    /// size limit the slower preset's extra quality per byte is worth its time. It writes pass-1
    /// statistics at full settings (no fast first pass), so the picture is the plain CRF encode.
    var qualityOptions: [OutputFormat.Option] {
        [
            .init(key: "crf", value: "\(VideoCompressor.qualityCRF)"), .init(key: "preset", value: "medium"),
            .init(key: "flags", value: "+pass1"), .init(key: "stats", value: stats.path),
            .init(key: "fastfirstpass", value: "0"),
        ]
    }

    /// Pass 2 of a 2-pass encode at `bitrate`, with a VBV cap.
    func secondPassOptions(bitrate: Int) -> [OutputFormat.Option] {
        [
            .init(key: "preset", value: "medium"), .init(key: "b", value: "\(bitrate)"),
            .init(key: "maxrate", value: "\(max(plan.maxRate, bitrate))"),
            .init(key: "bufsize", value: "\(max(plan.bufferSize, bitrate))"),
            .init(key: "flags", value: "+pass2"), .init(key: "stats", value: stats.path),
        ]
    }

    /// The notes every result of this encode ends with.
    func closingNotes(damaged: String?) -> [JobNote] {
        var notes = probe.inputNotes + audioNotes
        let sourceRate = probe.source.frameRate
        if plan.frameRate < sourceRate - 0.01 {
            notes.append(
                "frame rate lowered from \(Self.fps(sourceRate)) to \(Self.fps(plan.frameRate)) fps: "
                    + "the target leaves too few bits for every frame")
        }
        if range != .none { notes.append("HDR tone mapped to SDR BT.709") }
        if let damaged { notes.append(damaged) }
        return notes
    }

    var pictureDescription: String { "\(plan.width)x\(plan.height), \(Self.fps(plan.frameRate)) fps" }

    /// A frame rate for a note: "30", "29.97".
    static func fps(_ rate: Double) -> String { String(format: "%g", (rate * 100).rounded() / 100) }
}
