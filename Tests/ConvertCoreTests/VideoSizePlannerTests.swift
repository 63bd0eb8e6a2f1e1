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
        Planner.Source(duration: duration, width: width, height: height, frameRate: fps, fileBytes: fileBytes,
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

    @Test("the overhead model covers every file measured, within 10 %", arguments: [
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

    @Test("the retry bitrate moves toward the target", arguments: [
        (1_000_000, Int64(27_000_000), Int64(25_000_000), Int64(500_000), true),
        (1_000_000, Int64(20_000_000), Int64(25_000_000), Int64(500_000), false),
    ])
    func retry(previous: Int, achieved: Int64, target: Int64, fixed: Int64, shouldLower: Bool) {
        let corrected = Planner.correctedBitrate(previous: previous, achievedBytes: achieved, targetBytes: target, fixedBytes: fixed)
        #expect((corrected < previous) == shouldLower)
        let predicted = Double(achieved - fixed) * Double(corrected) / Double(previous) + Double(fixed)
        #expect(predicted <= Double(target))
    }
}

@Suite("video target-size arithmetic: measured audio")
struct VideoSizeRebudgetTests {
    typealias Planner = VideoSizePlanner

    static func plan(target: Int64) throws -> Planner.EncodePlan {
        let source = Planner.Source(duration: 8, width: 568, height: 320, frameRate: 30, fileBytes: 456_426,
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

    @Test("low AAC bitrates are budgeted with the encoder's measured overshoot", arguments: [
        (160_000, 1.03), (128_000, 1.03), (127_999, 1.08), (48_000, 1.08), (47_999, 1.18), (24_000, 1.18), (16_000, 1.5),
    ])
    func audioMargin(_ bitrate: Int, _ margin: Double) {
        #expect(Planner.encodedAudioMargin(bitrate: bitrate) == margin)
        #expect(Planner.bytes(of: .encode(bitrate: bitrate, channels: 2), duration: 10)
            == Int64((Double(bitrate) / 8 * 10 * margin).rounded(.up)))
    }
}
