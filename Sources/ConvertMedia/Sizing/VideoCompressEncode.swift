import ConvertCore
import Foundation

/// What every encode of one compress job shares, and the ``VideoPlan`` of each: the normal
/// quality (CRF 23, tried while it can still fit) and x264's average bitrate (the target's).
struct VideoCompressEncode {
    var request: VideoCompressRequest
    var probe: VideoCompressProbe
    var plan: VideoSizePlanner.EncodePlan
    var destination: String
    var range: ToneMapDecision.Action
    var filter: String
    /// The sound, as the plan says, with its note.
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
        filter = probe.timing(Self.videoFilter(plan: plan, probe: probe, range: range))
        (audioLanes, audioNotes) = Self.audio(plan.audio, lane: probe.audio, probe: probe)
    }

    /// The sound's lane as an audio plan says (copied, or AAC at its bitrate), with its note.
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
                [.audio(lane.stream, probe.timing(encoding, of: lane.stream))],
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
        // One frame a frame (1080i50 → 25p): the planner's frame rate is the source's frames, and a
        // size target is better spent on fewer of them.
        var filters = [VideoPlanner.deinterlace(probe.video, mode: .eachFrame)].compactMap { $0 }
        filters.append("scale=w=\(width):h=\(height)")
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

    /// The plan of one encode: the x264 lane with `options`, the sound, into an MP4.
    private func encodePlan(_ options: [OutputFormat.Option]) -> VideoPlan {
        let video = LanePlan.video(
            probe.video,
            VideoEncoding(
                encoder: "libx264", options: options, filter: filter,
                dynamicRange: range, keepsDisplayMatrix: true))
        return probe.plan(.video(.mp4), lanes: [video] + audioLanes, keepLocation: request.keepLocation)
    }

    /// The normal-quality encode: CRF 23, as `send-to-windows`, at x264's `preset`: `medium` by
    /// default, since under a size limit the slower preset's extra quality per byte is worth its
    /// time; ``easyPreset`` for a picture whose first frames showed it easy.
    func qualityPlan(preset: String = qualityPreset) -> VideoPlan {
        encodePlan([.init(key: "crf", value: "\(VideoCompressor.qualityCRF)"), .init(key: "preset", value: preset)])
    }

    /// x264's preset for the normal quality (see ``qualityPlan(preset:)``).
    static let qualityPreset = "medium"

    /// x264's preset for the normal quality of a picture found easy (``PictureSizeWatch/easy``):
    /// `veryfast`. On such a picture the slower presets' searches find nothing to gain: the
    /// benchmark's 1080p30 screen recording at CRF 23 took 2.19 s at `veryfast` for 216.8 kB and
    /// SSIM 0.999947, 3.85 s at `medium` for 238.6 kB and 0.999946.
    static let easyPreset = "veryfast"

    /// x264's preset for an encode at the target's bitrate: `fast` (two references, sub-pixel
    /// refinement 6), not the normal quality's `medium`. On two cores x264's one-pass `medium`
    /// alone takes 0.87 of the time of ffmpeg's two passes; `fast` is what makes one encode cost
    /// clearly less. Measured on `Benchmarks/`' binding clips at the same bitrate, against `medium`:
    /// real 1080p50 phone footage 22 % less time, SSIM 0.98750 for 0.98767; noisy handheld 1080p50
    /// 17 % less, 0.4952 for 0.4975. Both stay above ffmpeg's two-pass `medium` at the same target
    /// (0.98746, 0.4950), which also comes out larger.
    static let targetPreset = "fast"

    /// One encode at x264's average bitrate `bitrate`, within a VBV cap (the plan's, in proportion
    /// to `bitrate`) so that peaks never stall a player.
    func targetPlan(bitrate: Int) -> VideoPlan {
        encodePlan(
            [
                .init(key: "preset", value: Self.targetPreset), .init(key: "b", value: "\(bitrate)"),
                .init(key: "maxrate", value: "\(scaled(plan.maxRate, to: bitrate))"),
                .init(key: "bufsize", value: "\(scaled(plan.bufferSize, to: bitrate))"),
            ])
    }

    /// A VBV setting of the plan (`value` at the plan's bitrate), in the same proportion to
    /// `bitrate`: a correction's lower bitrate gets a smaller buffer too, so that the buffer's
    /// head start cannot carry the next encode over the target again.
    private func scaled(_ value: Int, to bitrate: Int) -> Int {
        guard plan.videoBitrate > 0 else { return value }
        return max(Int(Double(value) * Double(bitrate) / Double(plan.videoBitrate)), 1)
    }

    /// The frames the encode writes, as the plan's frame rate and the kept duration give them.
    var expectedFrames: Int { max(Int((probe.source.duration * plan.frameRate).rounded()), 1) }

    /// Whether the plan keeps the source's picture and frame rate: the target is ample, and
    /// the normal quality may fit. A plan that had to shrink the picture or drop frames has a
    /// tight target, and spending all of it is what keeps the most of the picture.
    var keepsPicture: Bool {
        let top = VideoSizePlanner.candidateHeights(
            sourceWidth: probe.source.width, sourceHeight: probe.source.height,
            maxHeight: request.maxHeight)[0]
        return plan.height == top && plan.frameRate >= probe.source.frameRate - 0.01
    }

    /// The heights allowed above the plan's, largest first: where a tight plan may grow when its
    /// first frames show the picture easy to code. None when the plan already has the largest
    /// height or had to lower the frame rate too (a target that tight leaves nothing to spare).
    var largerHeights: [Int] {
        guard plan.frameRate >= probe.source.frameRate - 0.01 else { return [] }
        return VideoSizePlanner.candidateHeights(
            sourceWidth: probe.source.width, sourceHeight: probe.source.height,
            maxHeight: request.maxHeight
        )
        .filter { $0 > plan.height }
    }

    /// The heights below the plan's down to `floor`, largest first: where an encode started above
    /// what bits per pixel chose may shrink back when its first frames show the picture hard.
    func smallerHeights(downTo floor: Int) -> [Int] {
        VideoSizePlanner.candidateHeights(
            sourceWidth: probe.source.width, sourceHeight: probe.source.height,
            maxHeight: request.maxHeight
        )
        .filter { $0 < plan.height && $0 >= floor }
    }

    /// The same encode one height above the plan's, where a tight target's encode starts: on
    /// every clip of `Benchmarks/` whose plan bits per pixel had lowered (phone footage at 8 and
    /// 25 MB a minute, noisy handheld footage, a screen recording, 4K HLG), the first frames
    /// showed the picture easy enough for the next height up, and starting there saves the
    /// encode begun at the smaller one. Nil when the plan is already the largest or lowered the
    /// frame rate.
    var oneHeightLarger: VideoCompressEncode? {
        guard let height = largerHeights.last,
            let larger = VideoSizePlanner.encodePlan(
                source: probe.source, targetBytes: plan.ceilingBytes, height: height, frameRate: plan.frameRate)
        else { return nil }
        return try? VideoCompressEncode(request, probe: probe, plan: larger)
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
        if probe.video.isInterlaced { notes.append(VideoPlanner.deinterlaceNote(probe.video, mode: .eachFrame)) }
        if let damaged { notes.append(damaged) }
        return notes
    }

    /// Says so when an output of `bytes` is larger than the source: only when no re-encode under
    /// the source's size keeps the picture above the quality floor (a cut compares with its share).
    func largerThanSourceNote(_ bytes: Int64) -> String? {
        let source = probe.source.fileBytes
        guard bytes > source, source < Int64.max else { return nil }
        return "larger than the input (\(request.unit.format(source, rounding: .down))): no smaller re-encode that "
            + "plays everywhere keeps the picture"
    }

    var pictureDescription: String { "\(plan.width)x\(plan.height), \(Self.fps(plan.frameRate)) fps" }

    /// A frame rate for a note: "30", "29.97".
    static func fps(_ rate: Double) -> String { String(format: "%g", (rate * 100).rounded() / 100) }
}
