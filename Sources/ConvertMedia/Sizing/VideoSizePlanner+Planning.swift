import ConvertCore

// The planner's policy: what it knows of a source, its decision, its ladders and tuning constants
// (all `package`). The public plans a VideoCompressPreview describes are in API/VideoSizePlanner.swift.
extension VideoSizePlanner {
    /// What the planner knows about the source.
    package struct Source: Sendable, Equatable {
        /// Duration in seconds (> 0).
        package var duration: Double
        /// Displayed width and height in pixels.
        package var width: Int
        /// Displayed height in pixels.
        package var height: Int
        /// Average frame rate.
        package var frameRate: Double
        /// The source file's size, for "it already fits".
        package var fileBytes: Int64
        /// Whether the source's video and audio can be copied as they are into the output
        /// (H.264 + AAC for MP4), which makes "already fits" a remux.
        package var isCopyCompatible: Bool
        /// The source's audio.
        package var audio: Audio
        /// The source's own video bitrate in bits/s, when known: what the content needs at the
        /// source's quality, so the quality floor of a very still or very clean clip follows it.
        package var videoBitrate: Double?
        /// Whether the video alone can be copied (H.264 that plays everywhere) while the sound
        /// must be encoded (MP3, PCM...): then a source that fits keeps its picture untouched.
        package var isVideoCopyCompatible: Bool

        /// Creates a source description.
        package init(
            duration: Double, width: Int, height: Int, frameRate: Double, fileBytes: Int64,
            isCopyCompatible: Bool, audio: Audio, videoBitrate: Double? = nil, isVideoCopyCompatible: Bool? = nil
        ) {
            self.duration = duration
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.fileBytes = fileBytes
            self.isCopyCompatible = isCopyCompatible
            self.audio = audio
            self.videoBitrate = videoBitrate
            self.isVideoCopyCompatible = isVideoCopyCompatible ?? isCopyCompatible
        }
    }

    /// The source's audio, as far as the budget is concerned.
    package enum Audio: Sendable, Equatable {
        /// No audio track.
        case none
        /// An AAC track that can be copied: its exact payload size and packet count.
        case copyable(payloadBytes: Int64, packetCount: Int, channels: Int)
        /// A track that must be encoded (to AAC).
        case needsEncoding(channels: Int, sampleRate: Int)
    }

    /// The decision.
    package enum Plan: Sendable, Equatable {
        /// The source already fits and can be copied: remux, no encode.
        case remux
        /// The source already fits and its video can be copied; only the sound is encoded.
        case copyVideo(audio: AudioPlan)
        /// Encode with these settings.
        case encode(EncodePlan)
    }

    /// The lowest quality the planner accepts before it lowers resolution: bits per pixel per
    /// frame for H.264. Below ~0.04 the picture falls apart into blocks.
    package static let minimumBitsPerPixel = 0.04
    /// Heights tried, largest first, never above the source.
    package static let heightLadder = [2160, 1440, 1080, 720, 540, 480, 360, 240]
    /// Frame rates tried when even the smallest height is below the floor.
    package static let frameRateLadder: [Double] = [30, 24, 15]
    /// Above this a clip was filmed fast on purpose (slow motion, 90/120/240 fps): its frame rate
    /// is kept down to ``highFrameRateMinimumHeight``, then halved to 60 before the picture
    /// shrinks further.
    package static let highFrameRate = 60.5
    /// The smallest height a high frame rate is kept at.
    package static let highFrameRateMinimumHeight = 720
    /// The most bits per pixel per frame x264 can use: about what its lowest quantizers write on
    /// busy content (1.5 measured on testsrc2). A short clip's target divided by its duration
    /// would otherwise ask for gigabits per second, which libx264 refuses to open with.
    package static let maximumBitsPerPixel = 2.0
    /// The highest average bitrate planned, bits/s: H.264 High level 5.2 allows 300 Mb/s, and
    /// the VBV buffer (twice this) must fit FFmpeg's 32-bit `bufsize`.
    package static let maximumBitrate = 200_000_000
    /// The most a re-encode spends over the source's own video bitrate: H.264 needs about twice
    /// the bits of HEVC or AV1 for the same picture, and more than the source had cannot add
    /// detail the source lost. A 0.5 MB HEVC clip is not made 8 MB because the target allows it.
    package static let sourceBitrateHeadroom = 3.0
    /// AAC bitrates tried, best first, per 2 channels.
    package static let audioLadder = [160_000, 128_000, 96_000, 64_000, 48_000, 32_000]
    /// The share of the budget audio may take before it is reduced.
    package static let maximumAudioShare = 0.15
    /// How much more than its nominal `bitrate` FFmpeg's AAC encoder writes. Measured on
    /// motion.mov's sound (FFmpeg 5.1): +1–3 % at 128–160 kb/s, +3–8 % at 48–96 kb/s, +8–18 % at
    /// 24–32 kb/s, +45 % at 16 kb/s stereo. This is only the plan's estimate: an encode that came
    /// out over is measured, and ``rebudget(_:measuredAudioBytes:duration:)`` puts the real size in.
    static func encodedAudioMargin(bitrate: Int) -> Double {
        switch bitrate {
        case 128_000...: return 1.03
        case 48_000...: return 1.08
        case 24_000...: return 1.18
        default: return 1.5
        }
    }
    /// The aim below the target: x264's average bitrate lands within ~1–3 % of what it is asked.
    static let firstAim = 0.975

    /// Why a target cannot be met.
    package struct Impossible: Error, Sendable, Equatable {
        /// The smallest output the planner could reach, bytes.
        package var smallestReachableBytes: Int64
    }

    /// Plans the output for `source` under `targetBytes`, never taller than `maxHeight` when one
    /// is given (a source taller than it is encoded).
    package static func plan(source: Source, targetBytes: Int64, maxHeight: Int? = nil) -> Result<Plan, Impossible> {
        precondition(
            source.duration > 0 && source.width > 0 && source.height > 0 && source.frameRate > 0,
            "the source must have a duration, dimensions and a frame rate")
        let fitsHeight =
            source.height <= min(maxHeight ?? .max, playableHeight(width: source.width, height: source.height))
        if source.isCopyCompatible && source.fileBytes <= targetBytes && fitsHeight {
            return .success(.remux)
        }
        if source.isVideoCopyCompatible && source.fileBytes <= targetBytes && fitsHeight,
            case .needsEncoding = source.audio
        {
            return .success(.copyVideo(audio: audioPlan(source: source, targetBytes: targetBytes)))
        }
        // A re-encode is held under the source's own size as well as the target: a command named
        // compress never returns a bigger file while a smaller one keeps the picture. Only when
        // none does is the target alone the ceiling (and the result says it grew).
        if source.fileBytes < targetBytes,
            let plan = ladderPlan(
                source: source, ceilingBytes: source.fileBytes, maxHeight: maxHeight,
                floor: minimumBitsPerPixel(for: source) * underSourceFloorShare)
        {
            return .success(.encode(plan))
        }
        if let plan = ladderPlan(
            source: source, ceilingBytes: targetBytes, maxHeight: maxHeight, floor: minimumBitsPerPixel(for: source))
        {
            return .success(.encode(plan))
        }
        return .failure(Impossible(smallestReachableBytes: smallestReachable(source: source)))
    }

    /// How far under its floor a picture may go when the ceiling is the source's own size: the
    /// source shows what its bits per pixel look like, and a re-encode a little under it (its
    /// sound re-encoded, its chroma subsampled) is about as good.
    static let underSourceFloorShare = 0.75

    /// The longest VBV buffer, in seconds of the average bitrate.
    static let longestBufferSeconds = 2.0
    /// The share of the clip's duration its VBV buffer may hold at most. x264 starts with the
    /// buffer 90 % full and may spend it on the first frames, on top of the average: with a 2 s
    /// buffer, a 2.5 s clip came out 36–62 % over its bitrate and missed its target three times
    /// in a row; with an eighth of its duration (0.31 s), 13 % over, which one correction fixes.
    static let bufferShareOfDuration = 0.125

    /// The VBV buffer of an encode at `rate` bits/s of a `duration`-second clip, in bits: 2 s of
    /// the bitrate, less for a clip under 16 s (an eighth of it), never under a quarter second.
    package static func bufferSize(rate: Int, duration: Double) -> Int {
        let seconds = min(longestBufferSeconds, max(duration * bufferShareOfDuration, 0.25))
        return max(Int(Double(rate) * seconds), 1)
    }

    /// The first encode down the ladder (frame rates, then heights) whose video keeps `floor`
    /// bits per pixel per frame under `ceilingBytes`; nil when none does.
    static func ladderPlan(source: Source, ceilingBytes: Int64, maxHeight: Int?, floor: Double) -> EncodePlan? {
        for (frameRate, heights) in stages(for: source, maxHeight: maxHeight) {
            for height in heights {
                guard
                    let plan = encodePlan(
                        source: source, targetBytes: ceilingBytes, height: height, frameRate: frameRate)
                else { break }
                // The floor is checked against what the target leaves the video, before any ceiling.
                let budget =
                    Double(ceilingBytes - plan.audioBytes - plan.overheadBytes) * firstAim * 8 / source.duration
                if budget / (Double(plan.width * plan.height) * frameRate) >= floor { return plan }
            }
        }
        return nil
    }

    /// The encode at `height` and `frameRate` spending what the target leaves the video, whatever
    /// the quality floor says (the planner's ladder checks it; an easy picture measured by a first
    /// pass may keep its size below it); nil when the audio and overhead alone fill the target.
    package static func encodePlan(source: Source, targetBytes: Int64, height: Int, frameRate: Double) -> EncodePlan? {
        let frames = Int((source.duration * frameRate).rounded(.up))
        let width = evenWidth(for: height, source: source)
        let audio = audioPlan(source: source, targetBytes: targetBytes)
        let audioBytes = bytes(of: audio, duration: source.duration)
        let overhead = overheadBytes(videoFrames: frames, audio: source.audio, duration: source.duration)
        let videoBytes = Double(targetBytes - audioBytes - overhead) * firstAim
        guard videoBytes > 0 else { return nil }
        let bitrate = videoBytes * 8 / source.duration
        let pixelRate = Double(width * height) * frameRate
        // A ceiling, not a goal: never more than the encoder can use.
        let content = source.videoBitrate.map { $0 * sourceBitrateHeadroom } ?? .infinity
        let usable = min(pixelRate * maximumBitsPerPixel, Double(maximumBitrate), content)
        let rate = max(Int(min(bitrate, usable).rounded(.down)), 1)
        return EncodePlan(
            videoBitrate: rate, maxRate: Int(Double(rate) * 1.5),
            bufferSize: bufferSize(rate: rate, duration: source.duration),
            width: width, height: height, frameRate: frameRate, audio: audio,
            overheadBytes: overhead, audioBytes: audioBytes, ceilingBytes: targetBytes)
    }

    /// `plan` with the encoded audio's measured size in place of its estimate: what the audio
    /// takes less (or more) goes to (or comes out of) the video, aimed below like the first plan.
    package static func rebudget(_ plan: EncodePlan, measuredAudioBytes: Int64, duration: Double) -> EncodePlan {
        precondition(duration > 0, "the duration must be positive")
        var result = plan
        let freed = Double(plan.audioBytes - measuredAudioBytes) * firstAim
        let rate = max(Int((Double(plan.videoBitrate) + freed * 8 / duration).rounded(.down)), 1)
        result.videoBitrate = rate
        result.maxRate = Int(Double(rate) * 1.5)
        result.bufferSize = bufferSize(rate: rate, duration: duration)
        result.audioBytes = measuredAudioBytes
        return result
    }

    /// A corrected bitrate after an encode produced `achievedBytes` against `targetBytes`,
    /// where `fixedBytes` (audio + overhead) do not scale with the video bitrate: the bitrate
    /// that brings the video to `aim` of what the target leaves it.
    package static func correctedBitrate(
        previous: Int, achievedBytes: Int64, targetBytes: Int64, fixedBytes: Int64, aim: Double = 0.985
    ) -> Int {
        let achievedVideo = Double(max(achievedBytes - fixedBytes, 1))
        let wantedVideo = Double(max(targetBytes - fixedBytes, 1)) * aim
        return max(Int(Double(previous) * wantedVideo / achievedVideo), 1)
    }

    /// Container overhead estimate for an MP4 with faststart: headers plus the per-sample index.
    ///
    /// Fitted to files this encoder wrote (overhead = file − video payload − audio payload;
    /// FFmpeg 5.1, x264 with B-frames), rounded up: about 1.4 kB of headers; 12 bytes per video
    /// sample (stsz + ctts); 4 per audio packet (stsz); and when audio is interleaved, every video
    /// frame starts a new chunk on each track, about 18 bytes per video frame of stco/stsc
    /// (measured 17.1–18.1 on 1 s, 8 s and 60 s clips, budgeted 20). Measured overheads: 2.5 kB
    /// (1 s, 30 frames), 3.8 kB (10 s, no audio), 9.9 kB (8 s), 66.9 kB (60 s, 1800 frames);
    /// this model gives 2.7, 4.9, 11.0 and 72.3 kB.
    package static func overheadBytes(videoFrames: Int, audio: Audio, duration: Double) -> Int64 {
        let fixed: Int64 = 1536  // ftyp, moov/mvhd, trak headers, edit lists, avcC, mdat header
        let audioPackets: Int64
        switch audio {
        case .none: audioPackets = 0
        case .copyable(_, let packets, _): audioPackets = Int64(packets)
        case .needsEncoding(_, let sampleRate):
            audioPackets = Int64((duration * Double(sampleRate) / 1024).rounded(.up))
        }
        let frames = Int64(videoFrames)
        let interleaving = audioPackets > 0 ? frames * 20 : 0
        let seconds = Int64(duration.rounded(.up))
        return fixed + frames * 12 + audioPackets * 4 + interleaving + seconds * 32
    }

    /// Bytes the audio plan costs over `duration`.
    package static func bytes(of audio: AudioPlan, duration: Double) -> Int64 {
        switch audio {
        case .none: return 0
        case .copy(let bytes): return bytes
        case .encode(let bitrate, _):
            return Int64((Double(bitrate) / 8 * duration * encodedAudioMargin(bitrate: bitrate)).rounded(.up))
        }
    }

    static func audioPlan(source: Source, targetBytes: Int64) -> AudioPlan {
        let allowance = audioAllowance(source: source, targetBytes: targetBytes)
        let channels: Int
        switch source.audio {
        case .none:
            return .none
        case .copyable(let bytes, _, let sourceChannels):
            if Double(bytes) <= allowance { return .copy(bytes: bytes) }
            channels = sourceChannels
        case .needsEncoding(let sourceChannels, _):
            channels = sourceChannels
        }
        let encoded = encodedAudioPlan(channels: channels, allowance: allowance, duration: source.duration)
        // A quiet or low-rate track costs less copied than any re-encode: then it is copied.
        if case .copyable(let bytes, _, _) = source.audio, bytes <= Self.bytes(of: encoded, duration: source.duration) {
            return .copy(bytes: bytes)
        }
        return encoded
    }

    /// What the sound may cost: what the target leaves once the picture has a comfortable
    /// bitrate (so a small picture keeps its sound copied), and never less than
    /// ``maximumAudioShare`` of the target (so a large picture does not take it all).
    static func audioAllowance(source: Source, targetBytes: Int64) -> Double {
        let share = Double(targetBytes) * maximumAudioShare
        let frames = Int((source.duration * source.frameRate).rounded(.up))
        let overhead = overheadBytes(videoFrames: frames, audio: source.audio, duration: source.duration)
        let spare = Double(targetBytes - overhead) - comfortableVideoBitrate(for: source) * source.duration / 8
        return max(share, spare)
    }

    /// A bitrate at which the source's picture, at its own size and frame rate, is well kept:
    /// twice the quality floor's bits per pixel, or the source's own video bitrate when lower
    /// (a re-encode cannot add detail the source lacks).
    static func comfortableVideoBitrate(for source: Source) -> Double {
        let floorRate = 2 * minimumBitsPerPixel * Double(source.width * source.height) * source.frameRate
        return min(floorRate, source.videoBitrate ?? floorRate)
    }

    static func encodedAudioPlan(channels: Int, allowance: Double, duration: Double) -> AudioPlan {
        let outputChannels = min(max(channels, 1), 2)
        for stereoRate in audioLadder {
            let rate = outputChannels == 1 ? stereoRate / 2 : stereoRate
            if Double(bytes(of: .encode(bitrate: rate, channels: outputChannels), duration: duration)) <= allowance {
                return .encode(bitrate: rate, channels: outputChannels)
            }
        }
        // Tight budget: mono at the lowest rate the encoder handles well.
        return .encode(bitrate: 24_000, channels: 1)
    }

    /// The heights tried, largest first: the source's (or `maxHeight`, or the tallest that plays
    /// everywhere, when lower), then the ladder's below it.
    package static func candidateHeights(sourceWidth: Int, sourceHeight: Int, maxHeight: Int? = nil) -> [Int] {
        let limit = min(maxHeight ?? sourceHeight, playableHeight(width: sourceWidth, height: sourceHeight))
        let top = min(sourceHeight, max(2, limit / 2 * 2))
        return [top] + heightLadder.filter { $0 < top }
    }

    /// The tallest displayed height at which a `width` x `height` picture fits 3840x2160 (2160x3840
    /// upright): beyond H.264 level 5.2, which Windows' decoder, most graphics cards and phones
    /// stop at, a size-target output would not play where it is sent.
    package static func playableHeight(width: Int, height: Int) -> Int {
        guard width > 0, height > 0 else { return height }
        let long = max(width, height)
        let short = min(width, height)
        let scale = min(1, min(3840 / Double(long), 2160 / Double(short)))
        return Int(Double(height) * scale)
    }

    /// The frame rates tried, each with the heights tried at it, in order: the source's own
    /// rate at every height (a high rate only down to 720p, then 60), then the lower rates of
    /// ``frameRateLadder`` once even the smallest height is below the quality floor.
    static func stages(for source: Source, maxHeight: Int? = nil) -> [(frameRate: Double, heights: [Int])] {
        let heights = candidateHeights(sourceWidth: source.width, sourceHeight: source.height, maxHeight: maxHeight)
        var stages: [(frameRate: Double, heights: [Int])]
        if source.frameRate > highFrameRate {
            let keptDownTo = min(source.height, highFrameRateMinimumHeight)
            stages = [(source.frameRate, heights.filter { $0 >= keptDownTo }), (60, heights)]
        } else {
            stages = [(source.frameRate, heights)]
        }
        let lowest = stages[stages.count - 1].frameRate
        stages += frameRateLadder.filter { $0 < lowest - 0.01 }.map { ($0, heights) }
        return stages
    }

    /// The quality floor for this source, bits per pixel per frame: ``minimumBitsPerPixel``, or
    /// the source's own when it is lower (a still or clean picture needs less, and the source
    /// shows how much less).
    static func minimumBitsPerPixel(for source: Source) -> Double {
        guard let bitrate = source.videoBitrate, bitrate > 0 else { return minimumBitsPerPixel }
        let own = bitrate / (Double(source.width * source.height) * source.frameRate)
        return min(minimumBitsPerPixel, own)
    }

    static func evenWidth(for height: Int, source: Source) -> Int {
        let width = Double(source.width) * Double(height) / Double(source.height)
        return max(2, Int((width / 2).rounded()) * 2)
    }

    /// The smallest output: the last stage's smallest picture at the quality floor, the
    /// cheapest audio, the index; or the source itself when it can be copied and is smaller.
    static func smallestReachable(source: Source) -> Int64 {
        let all = stages(for: source)
        let last = all[all.count - 1]
        let height = last.heights.last ?? source.height
        let width = evenWidth(for: height, source: source)
        let frames = Int((source.duration * last.frameRate).rounded(.up))
        let video =
            minimumBitsPerPixel(for: source) * Double(width * height) * last.frameRate * source.duration / 8 / firstAim
        let audio = bytes(of: audioPlan(source: source, targetBytes: 0), duration: source.duration)
        let encoded =
            Int64(video.rounded(.up)) + audio
            + overheadBytes(videoFrames: frames, audio: source.audio, duration: source.duration)
        return source.isCopyCompatible ? min(encoded, source.fileBytes) : encoded
    }
}
