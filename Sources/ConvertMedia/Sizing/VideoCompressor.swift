internal import CFFmpeg
import Foundation
import ConvertCore

/// The blocking body of ``VideoConverter/compress(_:)``: probe, plan, remux or 2-pass encode,
/// measure, retry pass 2 when over.
enum VideoCompressor {
    /// Pass-2 runs allowed before giving up (the first plus two corrections).
    static let maximumSecondPasses = 3

    /// What the probe learned about the input.
    struct Probe {
        var media: MediaSnapshot
        var video: StreamSnapshot
        /// The audio lane an MP4 output would use (copy AAC, else encode), if any.
        var audio: LanePlan?
        var source: VideoSizePlanner.Source
    }

    static func run(_ request: VideoCompressRequest, cancellation: CancellationFlag, reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        _ = VideoJob.silenced
        guard request.targetBytes > 0 else {
            throw ConvertError(.request, key: "request.target", message: "The target size must be more than 0 bytes.")
        }
        reporter.report(.probing, 0)
        let probe = try self.probe(request.input, cancellation: cancellation)
        try cancellation.check()
        var source = probe.source
        while true {
            switch VideoSizePlanner.plan(source: source, targetBytes: request.targetBytes) {
            case .failure(let impossible):
                throw ConvertError(
                    .request, key: "request.target-too-small",
                    message: "\(request.input) cannot be compressed to \(megabytes(request.targetBytes, rounding: .down)) MB: "
                        + "the smallest it can reach is \(megabytes(impossible.smallestReachableBytes, rounding: .up)) MB.",
                    path: request.input)
            case .success(.remux):
                if let result = try remux(request, probe: probe, cancellation: cancellation, reporter: reporter) {
                    return result
                }
                // The remuxed file came out over the target (a bigger index than the source's):
                // plan an encode instead.
                source.isCopyCompatible = false
            case .success(.encode(let plan)):
                return try encode(request, probe: probe, plan: plan, cancellation: cancellation, reporter: reporter)
            }
        }
    }

    /// `bytes` in MB (10⁶), rounded the safe way for the message: one decimal, three below 1 MB
    /// (so a 20 kB target does not read "0.0 MB").
    static func megabytes(_ bytes: Int64, rounding: FloatingPointRoundingRule) -> String {
        let decimals = bytes < 1_000_000 ? 3 : 1
        let scale = pow(10, Double(decimals))
        let value = (Double(bytes) / 1_000_000 * scale).rounded(rounding) / scale
        return String(format: "%.\(decimals)f", value)
    }

    // MARK: - Probe

    static func probe(_ path: String, cancellation: CancellationFlag) throws(ConvertError) -> Probe {
        let demuxer = try Demuxer(path: path, cancellation: cancellation)
        let media = MediaSnapshot(demuxer)
        guard let video = media.video else {
            throw ConvertError(.input, key: "input.no-video", message: "\(path) has no video track.", path: path)
        }
        guard video.decodable else {
            throw ConvertError(.unsupported, key: "unsupported.codec",
                               message: "\(path) uses the \(video.codecTag.isEmpty ? video.codecName : video.codecTag) "
                                   + "video codec, which this build of FFmpeg cannot decode.", path: path)
        }
        // Fails early for Dolby Vision without a usable base layer.
        _ = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        // The tracks' own durations say how long the media that gets encoded is; the movie
        // header's is one field that a damaged file can get wrong by millennia (a flipped `mvhd`
        // version byte reads the following fields as a 64-bit duration), which made the plan
        // demand petabytes. The container's duration is the fallback for tracks without one.
        let trackDurations = media.streams.filter { $0.kind == .video || $0.kind == .audio }.compactMap(\.duration)
        guard let duration = trackDurations.max() ?? media.duration, duration > 0 else {
            throw ConvertError(.input, key: "input.no-duration",
                               message: "\(path) does not say how long it is, so its bitrate cannot be planned.", path: path)
        }
        let stream = demuxer.stream(video.index).pointee
        var rate = av_q2d(stream.avg_frame_rate)
        if !(rate.isFinite && rate > 0) { rate = av_q2d(stream.r_frame_rate) }
        if !(rate.isFinite && rate > 0) { rate = 30 }
        let format = OutputFormat.video(.mp4)
        let audioLane = try VideoPlanner.audioLane(media: media, format: format, path: path)
        let audio: VideoSizePlanner.Audio
        switch audioLane {
        case .none:
            audio = .none
        case .copy(let stream):
            let (bytes, packets) = try payload(of: stream.index, in: demuxer, cancellation: cancellation)
            audio = .copyable(payloadBytes: bytes, packetCount: packets, channels: Int(stream.channels))
        case .audio(let stream, _), .video(let stream, _):
            audio = .needsEncoding(channels: Int(max(stream.channels, 1)), sampleRate: Int(max(stream.sampleRate, 8000)))
        }
        var info = stat()
        let fileBytes = stat(path, &info) == 0 ? Int64(info.st_size) : Int64.max
        let displayWidth = Int(video.isSideways ? video.height : video.width)
        let displayHeight = Int(video.isSideways ? video.width : video.height)
        let audioCopies = audioLane.map(\.isCopy) ?? true
        let source = VideoSizePlanner.Source(
            duration: duration, width: displayWidth, height: displayHeight, frameRate: rate, fileBytes: fileBytes,
            isCopyCompatible: VideoPlanner.isWindowsCompatible(video) && audioCopies, audio: audio)
        return Probe(media: media, video: video, audio: audioLane, source: source)
    }

    /// The exact payload bytes and packet count of stream `index`: every packet is read (the
    /// other streams are discarded, so the demuxer skips their data), which is exactly what a
    /// copy writes.
    static func payload(of index: Int, in demuxer: Demuxer, cancellation: CancellationFlag) throws(ConvertError) -> (Int64, Int) {
        for other in 0..<demuxer.streamCount where other != index {
            demuxer.stream(other).pointee.discard = AVDISCARD_ALL
        }
        let packet = try Packet()
        var bytes: Int64 = 0
        var count = 0
        while true {
            try cancellation.check()
            if try demuxer.read(into: packet) == .endOfFile { break }
            if Int(packet.pointer.pointee.stream_index) == index {
                bytes += Int64(packet.pointer.pointee.size)
                count += 1
            }
            packet.unref()
        }
        return (bytes, count)
    }

    // MARK: - Remux

    /// Copies video and audio into an MP4; nil (and nothing written) when the result is over the target.
    static func remux(_ request: VideoCompressRequest, probe: Probe, cancellation: CancellationFlag,
                      reporter: ProgressReporter) throws(ConvertError) -> JobResult? {
        let format = OutputFormat.video(.mp4)
        let plan = VideoPlan(format: format, lanes: [.copy(probe.video)] + (probe.audio.map { [$0] } ?? []),
                             keepLocation: request.keepLocation, notes: [])
        let destination = try OutputNamer.destination(
            input: request.input, explicitPath: request.output.path, directory: request.output.directory,
            overwrite: request.output.overwrite, pathExtension: format.fileExtension)[0]
        let staged = try StagedOutput(destination: destination)
        let damaged = try pump(plan, input: request.input, into: staged.temporaryPath, destination: destination,
                               cancellation: cancellation) { reporter.report(.remuxing, $0 * 0.95) }
        guard try fileSize(staged.temporaryPath) <= request.targetBytes else {
            staged.discard()
            return nil
        }
        var notes = ["already under the target: video and audio copied without re-encoding"]
        if damaged > 0 { notes.append("\(damaged) damaged packet\(damaged == 1 ? "" : "s") skipped") }
        return try commit(staged, request: request, notes: notes, reporter: reporter)
    }

    // MARK: - Encode

    static func encode(_ request: VideoCompressRequest, probe: Probe, plan: VideoSizePlanner.EncodePlan,
                       cancellation: CancellationFlag, reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        let input = request.input
        let format = OutputFormat.video(.mp4)
        let destination = try OutputNamer.destination(
            input: input, explicitPath: request.output.path, directory: request.output.directory,
            overwrite: request.output.overwrite, pathExtension: format.fileExtension)[0]
        let range = try ToneMapDecision.decide(for: probe.video, targetCarriesHDR: false, path: input)
        let filter = videoFilter(plan: plan, probe: probe, range: range)
        let stats = try StatsFile(destination: destination)
        defer { stats.remove() }

        func videoLane(pass: Int, bitrate: Int) -> LanePlan {
            let options: [OutputFormat.Option] = [
                .init(key: "preset", value: "medium"),
                .init(key: "b", value: "\(bitrate)"),
                .init(key: "maxrate", value: "\(max(plan.maxRate, bitrate))"),
                .init(key: "bufsize", value: "\(max(plan.bufferSize, bitrate))"),
                .init(key: "flags", value: pass == 1 ? "+pass1" : "+pass2"),
                .init(key: "stats", value: stats.path),
                // Pass 1 only gathers statistics: x264's fast first pass is several times quicker
                // and the second pass is as good.
                .init(key: "fastfirstpass", value: "1"),
            ]
            let encoding = VideoEncoding(encoder: "libx264", options: options, filter: filter, dynamicRange: range,
                                         keepsDisplayMatrix: true)
            return .video(probe.video, encoding)
        }

        var audioLane: [LanePlan] = []
        var notes: [String] = []
        switch (plan.audio, probe.audio) {
        case (.copy, .some(let lane)):
            audioLane = [lane]
            notes.append("audio copied without re-encoding")
        case (.encode(let bitrate, let channels), .some(let lane)):
            audioLane = [.audio(lane.stream, AudioEncoding(encoder: "aac", sampleRate: nil, channels: Int32(channels),
                                                           bitRate: Int64(bitrate)))]
            notes.append("audio re-encoded to AAC at \(bitrate / 1000) kb/s, \(channels == 1 ? "mono" : "stereo")")
        default:
            break
        }

        // Pass 1 gathers x264's statistics. Encoded audio rides along so its exact size is known
        // before pass 2 (FFmpeg's AAC encoder misses low bitrates by up to 45 %, and it is
        // deterministic, so pass 2 produces the very same packets); copied audio is already
        // counted, so then the packets go to FFmpeg's null muxer.
        let measuresAudio = audioLane.contains { !$0.isCopy }
        let firstPass = VideoPlan(format: OutputFormat(muxer: measuresAudio ? "mp4" : "null", fileExtension: "", options: []),
                                  lanes: [videoLane(pass: 1, bitrate: plan.videoBitrate)] + (measuresAudio ? audioLane : []),
                                  keepLocation: false, notes: [])
        let firstShare = 0.3
        _ = try pump(firstPass, input: input, into: stats.firstPassOutput, destination: destination,
                     cancellation: cancellation) { reporter.report(.pass(1, of: 2), $0 * firstShare) }
        var budget = plan
        if measuresAudio {
            let demuxer = try Demuxer(path: stats.firstPassOutput, cancellation: cancellation)
            let (audioBytes, _) = try payload(of: 1, in: demuxer, cancellation: cancellation)
            budget = VideoSizePlanner.rebudget(plan, measuredAudioBytes: audioBytes, duration: probe.source.duration)
            unlink(stats.firstPassOutput)
        }

        var bitrate = max(Int(Double(budget.videoBitrate) * request.firstBitrateFactor), 1)
        var start = firstShare
        var end = 0.95
        for attempt in 1...maximumSecondPasses {
            let stage: JobStage = attempt == 1 ? .pass(2, of: 2) : JobStage("retry")
            let secondPass = VideoPlan(format: format, lanes: [videoLane(pass: 2, bitrate: bitrate)] + audioLane,
                                       keepLocation: request.keepLocation, notes: [])
            let staged = try StagedOutput(destination: destination)
            let (from, to) = (start, end)
            let damaged = try pump(secondPass, input: input, into: staged.temporaryPath, destination: destination,
                                   cancellation: cancellation) { reporter.report(stage, from + $0 * (to - from)) }
            let achieved = try fileSize(staged.temporaryPath)
            if achieved <= request.targetBytes {
                var result = notes
                result.insert("2-pass H.264 at \(bitrate / 1000) kb/s, \(plan.width)x\(plan.height), "
                              + "\(String(format: "%g", (plan.frameRate * 100).rounded() / 100)) fps", at: 0)
                if range != .none { result.append("HDR tone mapped to SDR BT.709") }
                if attempt > 1 { result.append("pass 2 repeated \(attempt - 1) time\(attempt == 2 ? "" : "s") at a lower bitrate") }
                if damaged > 0 { result.append("\(damaged) damaged packet\(damaged == 1 ? "" : "s") skipped") }
                return try commit(staged, request: request, notes: result, reporter: reporter)
            }
            staged.discard()
            bitrate = VideoSizePlanner.correctedBitrate(previous: bitrate, achievedBytes: achieved, targetBytes: request.targetBytes,
                                                        fixedBytes: budget.audioBytes + budget.overheadBytes)
            start = end
            end = start + (0.98 - start) * 0.8
        }
        throw ConvertError(.internal, key: "internal.target-overshoot",
                           message: "\(input) came out over the target \(maximumSecondPasses) times; nothing was written.",
                           path: input)
    }

    /// Scale (to the planned size, in stored orientation: MP4 keeps the display matrix), frame
    /// rate, then tone map or 8-bit 4:2:0. Scaling first makes the tone map cheaper.
    static func videoFilter(plan: VideoSizePlanner.EncodePlan, probe: Probe, range: ToneMapDecision.Action) -> String {
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

    // MARK: - Shared steps

    /// Runs one pass of `plan` from a freshly opened input into `temporaryPath`; returns the
    /// damaged packets skipped.
    static func pump(_ plan: VideoPlan, input: String, into temporaryPath: String, destination: String,
                     cancellation: CancellationFlag, progress: @escaping (Double) -> Void) throws(ConvertError) -> Int {
        let demuxer = try Demuxer(path: input, cancellation: cancellation)
        let muxer = try Muxer(format: plan.format.muxer, temporaryPath: temporaryPath, path: destination)
        let pump = try FramePump(demuxer: demuxer, muxer: muxer, plan: plan, cancellation: cancellation, progress: progress)
        try pump.run()
        return pump.damagedPackets
    }

    static func fileSize(_ path: String) throws(ConvertError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ConvertError.fileSystem(errno, action: "measure", path: path) }
        return Int64(info.st_size)
    }

    static func commit(_ staged: StagedOutput, request: VideoCompressRequest, notes: [String],
                       reporter: ProgressReporter) throws(ConvertError) -> JobResult {
        reporter.report(.writing, 0.99)
        // The staged file is created private (0600); give the output the permissions any new file
        // of this user would get.
        let mask = umask(0)
        umask(mask)
        chmod(staged.temporaryPath, 0o666 & ~mask)
        let file = try staged.commit(overwrite: request.output.overwrite, renumber: request.output.path == nil || request.output.mayRenumber)
        return JobResult(inputPath: request.input, outputs: [file], notes: notes)
    }
}

/// x264's 2-pass statistics, next to the output.
///
/// A reserved, locked file (`.NAME.offconvert-XXXXXX.x264`) marks them as this encode's: x264
/// writes `<reserved>.stats` (through `.stats.temp`, which it renames, so the lock cannot live on
/// its files) and `.stats.mbtree`, and the audio-measuring first pass writes `<reserved>.pass1`.
/// ``remove()`` deletes them all, whatever state the encode stopped in. After a crash or a kill
/// the lock is gone with the process, so ``StagedOutput/removeStale(in:)`` recognises every one
/// of them as stale, while the statistics of an encode still running are left alone.
final class StatsFile {
    /// Suffix of the reserved, locked file; every statistics file's name continues it.
    static let suffix = StagedOutput.statsSuffix

    /// The reserved file; holds the lock, never written.
    private let ownerPath: String
    /// Open on ``ownerPath`` for as long as the statistics live; carries the lock.
    private let lockDescriptor: Int32

    init(destination: String) throws(ConvertError) {
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        var template: [CChar] = Array("\(folder)/.\(url.lastPathComponent)\(StagedOutput.marker)XXXXXX\(Self.suffix)".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemps(base, Int32(Self.suffix.utf8.count))
        }
        guard descriptor >= 0 else {
            throw ConvertError.fileSystem(errno, action: "create a temporary file in", path: folder)
        }
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        lockDescriptor = descriptor
        ownerPath = String(nulTerminated: template)
    }

    /// The path given to x264's `stats` option.
    var path: String { ownerPath + ".stats" }

    /// Where pass 1 writes its packets when it measures the encoded audio.
    var firstPassOutput: String { ownerPath + ".pass1" }

    /// Removes the statistics and every file x264 derived from them, then the reserved file
    /// (last, so no statistics file is ever left without its locked owner while the encode lives).
    func remove() {
        for suffix in [".stats", ".stats.temp", ".stats.mbtree", ".stats.mbtree.temp", ".pass1"] {
            unlink(ownerPath + suffix)
        }
        unlink(ownerPath)
    }

    deinit {
        remove()
        close(lockDescriptor)
    }
}
