import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("video target-size arithmetic")
struct VideoSizePlannerTests {
    typealias Planner = VideoSizePlanner

    static func source(
        duration: Double = 10, width: Int = 1920, height: Int = 1080, fps: Double = 30,
        fileBytes: Int64 = 50_000_000, copyable: Bool = false, audio: Planner.Audio = .none
    ) -> Planner.Source {
        Planner.Source(
            duration: duration, width: width, height: height, frameRate: fps, fileBytes: fileBytes,
            isCopyCompatible: copyable, audio: audio)
    }

    func encodePlan(_ result: Result<Planner.Plan, Planner.Impossible>) throws -> Planner.EncodePlan {
        guard case .success(.encode(let plan)) = result else {
            Issue.record("expected an encode plan, got \(result)")
            throw PlanMismatch()
        }
        return plan
    }

    struct PlanMismatch: Error {}

    /// The planned bytes never exceed the target.
    func expectFits(_ plan: Planner.EncodePlan, duration: Double, target: Int64) {
        let video = Int64((Double(plan.videoBitrate) * duration / 8).rounded(.up))
        #expect(video + plan.audioBytes + plan.overheadBytes <= target)
    }

    @Test("a copyable source that already fits is remuxed; one byte less and it is encoded")
    func alreadyFits() throws {
        let fits = Self.source(fileBytes: 20_000_000, copyable: true)
        #expect(Planner.plan(source: fits, targetBytes: 20_000_000) == .success(.remux))
        let plan = try encodePlan(Planner.plan(source: fits, targetBytes: 19_999_999))
        expectFits(plan, duration: 10, target: 19_999_999)
    }

    @Test("a source that fits but cannot be copied is encoded, never upscaled")
    func noUpscale() throws {
        let small = Self.source(width: 640, height: 360, fileBytes: 1_000_000)
        let plan = try encodePlan(Planner.plan(source: small, targetBytes: 1_000_000_000))
        #expect(plan.width == 640 && plan.height == 360)
        #expect(plan.frameRate == 30)
    }

    @Test("no audio costs nothing")
    func zeroAudio() throws {
        let plan = try encodePlan(Planner.plan(source: Self.source(), targetBytes: 25_000_000))
        #expect(plan.audio == .none)
        #expect(plan.audioBytes == 0)
        expectFits(plan, duration: 10, target: 25_000_000)
    }

    @Test("copied audio is counted to the byte")
    func copiedAudioExact() throws {
        let audio = Planner.Audio.copyable(payloadBytes: 160_123, packetCount: 431, channels: 2)
        let plan = try encodePlan(Planner.plan(source: Self.source(audio: audio), targetBytes: 25_000_000))
        #expect(plan.audio == .copy(bytes: 160_123))
        #expect(plan.audioBytes == 160_123)
    }

    @Test("audio that would take too much of a tight budget is re-encoded smaller")
    func tightAudio() throws {
        let audio = Planner.Audio.copyable(payloadBytes: 4_000_000, packetCount: 2_000, channels: 6)
        let target: Int64 = 8_000_000
        let plan = try encodePlan(Planner.plan(source: Self.source(duration: 60, audio: audio), targetBytes: target))
        guard case .encode(let bitrate, let channels) = plan.audio else {
            Issue.record("expected encoded audio, got \(plan.audio)")
            return
        }
        #expect(channels == 2)
        #expect(Double(plan.audioBytes) <= Double(target) * Planner.maximumAudioShare)
        #expect(bitrate < 160_000)
        expectFits(plan, duration: 60, target: target)
    }

    @Test("exactly at the quality floor keeps the resolution; one byte under drops a rung")
    func floorBoundary() throws {
        let src = Self.source()
        let frames = Int((src.duration * src.frameRate).rounded(.up))
        let overhead = Planner.overheadBytes(videoFrames: frames, audio: .none, duration: src.duration)
        let videoBytes = Planner.minimumBitsPerPixel * 1920 * 1080 * 30 * 10 / 8 / 0.975
        let atFloor = Int64(videoBytes.rounded(.up)) + overhead
        let plan = try encodePlan(Planner.plan(source: src, targetBytes: atFloor))
        #expect(plan.height == 1080)
        let below = try encodePlan(Planner.plan(source: src, targetBytes: atFloor - 1))
        #expect(below.height == 720)
        #expect(below.width == 1280)
        expectFits(below, duration: 10, target: atFloor - 1)
    }

    @Test("a very short clip is planned with its headers, not a percentage")
    func veryShort() throws {
        let plan = try encodePlan(Planner.plan(source: Self.source(duration: 0.1), targetBytes: 200_000))
        expectFits(plan, duration: 0.1, target: 200_000)
        // Headers dominate: more than the 1.4 kB measured on real files, far more than 3 frames' index.
        #expect(plan.overheadBytes > 1_400 && plan.overheadBytes < 2_000)
    }

    @Test(
        "the overhead model covers every file measured, within 10 %",
        arguments: [
            // (video frames, audio, duration, measured overhead bytes of a real output)
            (30, Planner.Audio.copyable(payloadBytes: 0, packetCount: 45, channels: 1), 1.024, Int64(2_484)),
            (250, Planner.Audio.none, 10.0, Int64(3_830)),
            (242, Planner.Audio.copyable(payloadBytes: 0, packetCount: 348, channels: 1), 8.067, Int64(9_903)),
            (1800, Planner.Audio.copyable(payloadBytes: 0, packetCount: 2815, channels: 2), 60.0, Int64(66_887)),
        ])
    func overheadModel(_ frames: Int, _ audio: Planner.Audio, _ duration: Double, _ measured: Int64) {
        let estimate = Planner.overheadBytes(videoFrames: frames, audio: audio, duration: duration)
        #expect(estimate >= measured)
        #expect(estimate - measured <= max(measured / 10, 1_100))
    }

    @Test("a very long clip drops resolution, then frame rate, then is impossible with the smallest size")
    func veryLong() throws {
        let threeHours = Self.source(duration: 3 * 3600, audio: .needsEncoding(channels: 2, sampleRate: 48_000))
        let result = Planner.plan(source: threeHours, targetBytes: 25_000_000)
        guard case .failure(let impossible) = result else {
            Issue.record("expected impossible, got \(result)")
            return
        }
        #expect(impossible.smallestReachableBytes > 25_000_000)
        // The smallest reachable size is itself reachable.
        let reachable = Planner.plan(source: threeHours, targetBytes: impossible.smallestReachableBytes + 1_000_000)
        let plan = try encodePlan(reachable)
        #expect(plan.height == 240)
        #expect(plan.frameRate == 15)
    }

    @Test("frame rate is lowered only after the smallest height")
    func frameRateLast() throws {
        let src = Self.source(duration: 600, fps: 60)
        var target: Int64 = 400_000_000
        var previous: (Int, Double) = (1080, 60)
        while case .success(.encode(let plan)) = Planner.plan(source: src, targetBytes: target) {
            if plan.frameRate < 60 { #expect(plan.height == 240 || previous.1 < 60) }
            #expect(plan.height <= previous.0)
            previous = (plan.height, plan.frameRate)
            expectFits(plan, duration: 600, target: target)
            target = target * 8 / 10
        }
    }

    @Test("a huge target keeps everything and never upscales", arguments: [Int64(1) << 40])
    func hugeTarget(target: Int64) throws {
        let plan = try encodePlan(Planner.plan(source: Self.source(fileBytes: 2_000_000_000), targetBytes: target))
        #expect(plan.height == 1080 && plan.frameRate == 30)
    }

    @Test(
        "the VBV buffer holds at most an eighth of a short clip (x264 may spend it at once, over the average), 2 s of a long one",
        arguments: [(2.5, 0.3125), (8.0, 1.0), (16.0, 2.0), (600.0, 2.0), (0.5, 0.25)])
    func bufferFollowsDuration(duration: Double, seconds: Double) throws {
        let plan = try encodePlan(
            Planner.plan(source: Self.source(duration: duration), targetBytes: Int64(duration * 4_000_000 / 8)))
        let held = Double(plan.bufferSize) / Double(plan.videoBitrate)
        #expect(abs(held - seconds) < 0.001, "\(duration) s clip: a buffer of \(held) s")
        #expect(plan.maxRate > plan.videoBitrate)
    }

    @Test(
        "the retry bitrate moves toward the target",
        arguments: [
            (1_000_000, Int64(27_000_000), Int64(25_000_000), Int64(500_000), true),
            (1_000_000, Int64(20_000_000), Int64(25_000_000), Int64(500_000), false),
        ])
    func retry(previous: Int, achieved: Int64, target: Int64, fixed: Int64, shouldLower: Bool) {
        let corrected = Planner.correctedBitrate(
            previous: previous, achievedBytes: achieved, targetBytes: target, fixedBytes: fixed)
        #expect((corrected < previous) == shouldLower)
        let predicted = Double(achieved - fixed) * Double(corrected) / Double(previous) + Double(fixed)
        #expect(predicted <= Double(target))
    }
}

@Suite("video target-size arithmetic: measured audio")
struct VideoSizeRebudgetTests {
    typealias Planner = VideoSizePlanner

    static func plan(target: Int64) throws -> Planner.EncodePlan {
        let source = Planner.Source(
            duration: 8, width: 568, height: 320, frameRate: 30, fileBytes: 456_426,
            isCopyCompatible: false, audio: .needsEncoding(channels: 2, sampleRate: 44_100))
        guard case .success(.encode(let plan)) = Planner.plan(source: source, targetBytes: target) else {
            throw PlanError()
        }
        return plan
    }

    struct PlanError: Error {}

    @Test("the measured audio replaces the estimate; the video gets what is freed, and never more than fits")
    func rebudget() throws {
        let target: Int64 = 300_000
        let plan = try Self.plan(target: target)
        #expect(Planner.rebudget(plan, measuredAudioBytes: plan.audioBytes, duration: 8) == plan)
        for measured in [plan.audioBytes - 5_000, plan.audioBytes + 1, plan.audioBytes + 8_000, 0] {
            let adjusted = Planner.rebudget(plan, measuredAudioBytes: measured, duration: 8)
            #expect(adjusted.audioBytes == measured)
            #expect((adjusted.videoBitrate < plan.videoBitrate) == (measured > plan.audioBytes))
            let video = Int64((Double(adjusted.videoBitrate) * 8 / 8).rounded(.up))
            #expect(video + measured + adjusted.overheadBytes <= target)
            #expect(adjusted.maxRate >= adjusted.videoBitrate && adjusted.bufferSize >= adjusted.videoBitrate)
        }
    }

    @Test(
        "low AAC bitrates are budgeted with the encoder's measured overshoot",
        arguments: [
            (160_000, 1.03), (128_000, 1.03), (127_999, 1.08), (48_000, 1.08), (47_999, 1.18), (24_000, 1.18),
            (16_000, 1.5),
        ])
    func audioMargin(_ bitrate: Int, _ margin: Double) {
        #expect(Planner.encodedAudioMargin(bitrate: bitrate) == margin)
        #expect(
            Planner.bytes(of: .encode(bitrate: bitrate, channels: 2), duration: 10)
                == Int64((Double(bitrate) / 8 * 10 * margin).rounded(.up)))
    }
}

/// The target is a ceiling (issue #18): bitrates the encoder and content can use, frame rates
/// kept, a floor that follows the content.
@Suite("video target-size arithmetic: ceilings and floors")
struct VideoSizeCeilingTests {
    typealias Planner = VideoSizePlanner

    static func source(
        duration: Double = 10, width: Int = 1920, height: Int = 1080, fps: Double = 30,
        fileBytes: Int64 = 50_000_000, copyable: Bool = false, audio: Planner.Audio = .none,
        videoBitrate: Double? = nil
    ) -> Planner.Source {
        Planner.Source(
            duration: duration, width: width, height: height, frameRate: fps, fileBytes: fileBytes,
            isCopyCompatible: copyable, audio: audio, videoBitrate: videoBitrate)
    }

    static func encodePlan(_ result: Result<Planner.Plan, Planner.Impossible>) -> Planner.EncodePlan? {
        guard case .success(.encode(let plan)) = result else { return nil }
        return plan
    }

    @Test(
        "a 5-frame clip with an ample target gets a bitrate x264 can open: capped per pixel, VBV buffer within 32 bits",
        arguments: [(320, 180, 30.0, 5.0 / 30), (3840, 2160, 60.0, 5.0 / 60), (1280, 720, 30.0, 5.0 / 30)])
    func shortClipCap(_ width: Int, _ height: Int, _ fps: Double, _ duration: Double) throws {
        let source = Self.source(duration: duration, width: width, height: height, fps: fps)
        let plan = try #require(Self.encodePlan(Planner.plan(source: source, targetBytes: 25_000_000)))
        let pixelRate = Double(width * height) * fps
        #expect(Double(plan.videoBitrate) <= pixelRate * Planner.maximumBitsPerPixel)
        #expect(plan.videoBitrate <= Planner.maximumBitrate)
        #expect(plan.bufferSize <= Int(Int32.max) && plan.maxRate <= Int(Int32.max))
        #expect(plan.width == width && plan.height == height && plan.frameRate == fps)
    }

    @Test("a re-encode never plans more than three times the source's own video bitrate")
    func contentCap() throws {
        let source = Self.source(width: 640, height: 360, fileBytes: 50_000_000, videoBitrate: 400_000)
        let plan = try #require(Self.encodePlan(Planner.plan(source: source, targetBytes: 80_000_000)))
        #expect(plan.videoBitrate == 1_200_000)
        #expect(plan.plannedBytes(duration: 10) < 1_600_000)
    }

    @Test("a re-encode is held under the source's own size when that is smaller than the target")
    func neverBiggerThanSource() throws {
        // 42 s of 1280x720 at 20 fps, 388 kb/s of 4:4:4 H.264 with MP3 mono: 2.18 MB, a 10 MB target.
        let bird = Self.source(
            duration: 42, width: 1280, height: 720, fps: 20, fileBytes: 2_180_000,
            audio: .needsEncoding(channels: 1, sampleRate: 44_100), videoBitrate: 388_000)
        let plan = try #require(Self.encodePlan(Planner.plan(source: bird, targetBytes: 10_000_000)))
        #expect(plan.ceilingBytes == 2_180_000)
        #expect(plan.plannedBytes(duration: 42) <= 2_180_000)
        #expect(plan.height == 720, "the picture keeps its size: \(plan.width)x\(plan.height)")
        // A source already far smaller than any re-encode that keeps its picture: the target is
        // the ceiling then (the result says it grew).
        let tiny = Self.source(
            duration: 42, width: 1280, height: 720, fps: 20, fileBytes: 60_000,
            audio: .needsEncoding(channels: 1, sampleRate: 44_100), videoBitrate: 9_000)
        let grown = try #require(Self.encodePlan(Planner.plan(source: tiny, targetBytes: 10_000_000)))
        #expect(grown.ceilingBytes == 10_000_000)
    }

    @Test(
        "the sound is copied whenever the picture leaves room for it, however large its share",
        arguments: [(2, 115_600, 2_240_000), (1, 43_500, 1_500_000)])
    func soundKeptWhenItFits(_ channels: Int, _ audioBitrate: Int, _ fileBytes: Int64) throws {
        // 85.5 s of 320x240 at 10 fps (about 94 kb/s of H.264) with AAC, a 2 MB target.
        let payload = Int64(Double(audioBitrate) * 85.5 / 8)
        let audio = Planner.Audio.copyable(payloadBytes: payload, packetCount: 3_683, channels: channels)
        let clip = Self.source(
            duration: 85.5, width: 320, height: 240, fps: 10, fileBytes: fileBytes, audio: audio,
            videoBitrate: 94_000)
        let plan = try #require(Self.encodePlan(Planner.plan(source: clip, targetBytes: 2_000_000)))
        #expect(plan.audio == .copy(bytes: payload), "\(plan.audio)")
        // A large picture still leaves the sound at most its share when the target is tight.
        let large = Self.source(duration: 85.5, fps: 30, audio: audio, videoBitrate: 8_000_000)
        let tight = try #require(Self.encodePlan(Planner.plan(source: large, targetBytes: 8_000_000)))
        #expect(Double(tight.audioBytes) <= 8_000_000 * Planner.maximumAudioShare)
    }

    @Test("high frame rates are kept at an ample bitrate", arguments: [120.0, 90.0, 240.0, 60.0, 50.0])
    func frameRateKept(_ fps: Double) throws {
        let plan = try #require(
            Self.encodePlan(Planner.plan(source: Self.source(fps: fps), targetBytes: 1_000_000_000)))
        #expect(plan.frameRate == fps)
    }

    @Test("a high frame rate is kept down to 720p, then halved to 60 before the picture shrinks further")
    func highFrameRateLadder() {
        let source = Self.source(duration: 60, fps: 120, fileBytes: 5_000_000_000)
        var target: Int64 = 2_000_000_000
        var seen: [(Int, Double)] = []
        while let plan = Self.encodePlan(Planner.plan(source: source, targetBytes: target)) {
            seen.append((plan.height, plan.frameRate))
            if plan.frameRate == 120 { #expect(plan.height >= 720) }
            target = target * 9 / 10
        }
        #expect(seen.contains { $0 == (1080, 120) })
        #expect(seen.contains { $0 == (720, 120) })
        // 1080p at 60 needs more bits than 720p at 120, so after 720p/120 comes 720p/60.
        #expect(seen.contains { $0 == (720, 60) })
        #expect(!seen.contains { $0.1 == 60 && $0.0 > 720 })
        #expect(seen.contains { $0.1 < 60 })
    }

    @Test("the floor follows a low-bitrate source: a still 40 s clip of 107 kB can reach about its own size")
    func contentFloor() throws {
        let audio = Planner.Audio.copyable(payloadBytes: 60_700, packetCount: 863, channels: 1)
        let still = Self.source(
            duration: 40, width: 320, height: 240, fps: 15, fileBytes: 106_931, audio: audio, videoBitrate: 4_009)
        guard case .failure(let impossible) = Planner.plan(source: still, targetBytes: 50_000) else {
            Issue.record("50 kB planned for a clip whose audio alone is 60.7 kB")
            return
        }
        #expect(impossible.smallestReachableBytes <= 110_000)
        // The audio is copied (12 kb/s costs less than any re-encode).
        let plan = try #require(
            Self.encodePlan(Planner.plan(source: still, targetBytes: impossible.smallestReachableBytes)))
        #expect(plan.audio == .copy(bytes: 60_700))
        #expect(plan.width == 320 && plan.frameRate == 15)
        // Without the source's bitrate, the generic floor says several times more.
        var unknown = still
        unknown.videoBitrate = nil
        guard case .failure(let generic) = Planner.plan(source: unknown, targetBytes: 50_000) else {
            Issue.record("expected impossible")
            return
        }
        #expect(generic.smallestReachableBytes > 3 * impossible.smallestReachableBytes)
    }

    @Test("H.264 whose sound MP4 cannot carry keeps its video when it fits; over the target it is encoded")
    func copyVideoOnly() {
        let audio = Planner.Audio.needsEncoding(channels: 2, sampleRate: 44_100)
        let source = Planner.Source(
            duration: 10, width: 1280, height: 720, frameRate: 30, fileBytes: 5_000_000,
            isCopyCompatible: false, audio: audio, isVideoCopyCompatible: true)
        #expect(
            Planner.plan(source: source, targetBytes: 5_000_000)
                == .success(.copyVideo(audio: .encode(bitrate: 160_000, channels: 2))))
        guard case .success(.encode) = Planner.plan(source: source, targetBytes: 4_999_999) else {
            Issue.record("expected an encode under the source's size")
            return
        }
    }

    @Test("a source that can be copied is never said to need more than itself")
    func copyFloor() {
        let source = Self.source(duration: 3600, width: 640, height: 360, fileBytes: 30_000_000, copyable: true)
        guard case .failure(let impossible) = Planner.plan(source: source, targetBytes: 20_000_000) else {
            Issue.record("expected impossible")
            return
        }
        #expect(impossible.smallestReachableBytes <= 30_000_000)
        #expect(Planner.plan(source: source, targetBytes: 30_000_000) == .success(.remux))
    }
}

@Suite("size units in messages")
struct SizeUnitTests {
    @Test(
        "the unit is read from the target as written",
        arguments: [
            ("50kB", "kB"), ("50 KB", "kB"), ("500k", "kB"), ("25MB", "MB"), ("8MiB", "MiB"), ("1.5GB", "GB"),
            ("900B", "B"),
            ("2 gib", "GiB"), ("12KiB", "KiB"),
        ])
    func parse(_ text: String, _ symbol: String) {
        #expect(SizeUnit(ofSize: text)?.symbol == symbol)
    }

    @Test("a number without a unit, or an unknown one, has no unit", arguments: ["25", "25 furlongs", ""])
    func noUnit(_ text: String) {
        #expect(SizeUnit(ofSize: text) == nil)
    }

    @Test(
        "sizes read in the unit, a limit rounded down and a smallest size up",
        arguments: [
            (SizeUnit.kilobyte, Int64(50_000), FloatingPointRoundingRule.down, "50 kB"),
            (SizeUnit.kilobyte, Int64(404_001), .up, "405 kB"),
            (SizeUnit.megabyte, Int64(1_150_000), .down, "1.15 MB"),
            (SizeUnit.megabyte, Int64(404_321), .up, "0.405 MB"),
            (SizeUnit.megabyte, Int64(25_000_000), .down, "25 MB"),
            (SizeUnit.mebibyte, Int64(8_388_608), .down, "8 MiB"),
            (SizeUnit.byte, Int64(900), .down, "900 B"),
        ])
    func format(_ unit: SizeUnit, _ bytes: Int64, _ rounding: FloatingPointRoundingRule, _ text: String) {
        #expect(unit.format(bytes, rounding: rounding) == text)
    }
}
