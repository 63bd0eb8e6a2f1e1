import ConvertCore
internal import FFmpegLayer

/// Runs a ``VideoPlan``: demux → (copy | decode → filter → encode) → mux.
///
/// Timestamps are rescaled only where they cross a stage boundary (input stream → filter graph →
/// encoder → output stream), never re-generated, so variable frame rates survive and audio and
/// video stay in sync over long clips. The packet loop checks the cancellation flag once per
/// packet; FFmpeg's interrupt callback checks the same flag during blocking reads.
final class FramePump {
    private let demuxer: Demuxer
    let muxer: Muxer
    private let plan: VideoPlan
    private let cancellation: CancellationFlag
    private var lanes: [Int: any PumpLane] = [:]
    private let progress: (Double) -> Void
    /// Flushes the output to the disk as it grows, asked every ``writeBehindInterval`` packets.
    private let writeBehind: WriteBehind?
    private static let writeBehindInterval = 256
    /// Container tags left out because they give a location.
    private(set) var removedLocationTags = 0
    /// Facts the lanes found while opening their streams, for the job result.
    var notes: [String] { plan.lanes.compactMap { lanes[$0.stream.index] as? VideoLane }.flatMap(\.notes) }
    /// Damaged packets the decoders skipped, over all lanes.
    var damagedPackets: Int { lanes.values.reduce(0) { $0 + $1.damagedPackets } }

    init(
        demuxer: Demuxer, muxer: Muxer, plan: VideoPlan, cancellation: CancellationFlag,
        watch: (any EncodeWatch)? = nil, progress: @escaping (Double) -> Void, writeBehind: WriteBehind? = nil
    ) throws(ConvertError) {
        self.writeBehind = writeBehind
        self.demuxer = demuxer
        self.muxer = muxer
        self.plan = plan
        self.cancellation = cancellation
        self.progress = progress
        var attachments = 0
        for lane in plan.lanes {
            let stream = demuxer.stream(lane.stream.index)
            switch lane {
            case .copy where lane.stream.isAttachedPicture && plan.format.muxer == .matroska:
                // Matroska keeps a cover as an attachment, written with the header: no lane, and
                // the picture's packet is not wanted.
                attachments += 1
                try Self.attach(stream, number: attachments, to: muxer)
            case .copy:
                let copy = try CopyLane(
                    input: stream, muxer: muxer, format: plan.format, containerStart: demuxer.startTime,
                    editListInput: demuxer.isISOBMFF)
                lanes[lane.stream.index] =
                    lane.stream.kind == .subtitle ? Self.cutting(copy, stream: stream, plan: plan) : copy
            case .video(_, let encoding):
                let video = try VideoLane(
                    input: stream, encoding: encoding, demuxer: demuxer, muxer: muxer,
                    format: plan.format, maxPixels: plan.maxPixels, cancellation: cancellation)
                if plan.timesByFrameRate { video.framePace = FrameRateTiming.frameTicks(stream: stream) }
                if lane.stream.index == plan.lanes.first?.stream.index { video.watch = watch }
                lanes[lane.stream.index] = video
            case .audio(_, let encoding):
                lanes[lane.stream.index] = try AudioLane(
                    input: stream, inputPath: demuxer.path, encoding: encoding, muxer: muxer)
            case .subtitle(_, let codec):
                lanes[lane.stream.index] = Self.cutting(
                    try SubtitleLane(input: stream, codec: codec, muxer: muxer), stream: stream, plan: plan)
            }
        }
        // An animation's muxer keeps neither tags nor chapters.
        if plan.format.muxer != .gif && plan.format.muxer != .webp {
            removedLocationTags = muxer.copyMetadata(
                from: demuxer, keepLocation: plan.keepLocation,
                keepIdentifiers: plan.keepIdentifiers)
            // Chapters of the part kept, timed from its start, where the format keeps them (the
            // plan says where it has no place for them).
            let chapters = demuxer.chapters.compactMap { $0.clipped(from: plan.start, to: plan.end) }
            switch plan.format.muxer.chapterPlace {
            case .chapters: try muxer.addChapters(chapters)
            case .vorbisComments: muxer.setTags(Chapter.vorbisComments(chapters))
            case .none: break
            }
        }
    }

    /// Adds the cover `picture` to a Matroska `muxer` as an attachment, named by the source's
    /// attachment name when it had one, else `cover.jpg` (the name Matroska players look for),
    /// then `cover-2.jpg`, ….
    private static func attach(_ picture: Demuxer.Stream, number: Int, to muxer: Muxer) throws(ConvertError) {
        let png = picture.codec == .png
        let named = picture.metadata.first { $0.key.lowercased() == "filename" }?.value
        let fileName = named ?? "cover\(number == 1 ? "" : "-\(number)").\(png ? "png" : "jpg")"
        try muxer.addAttachment(picture: picture, fileName: fileName, mimeType: png ? "image/png" : "image/jpeg")
    }

    /// A subtitle lane as the plan's cut needs it: its cues timed from the start and clipped
    /// (see ``SubtitleCut``); the lane itself when nothing is cut.
    private static func cutting(_ lane: PumpLane, stream: Demuxer.Stream, plan: VideoPlan) -> PumpLane {
        guard plan.start > 0 || plan.end != nil else { return lane }
        return SubtitleCut(lane, timeBase: stream.timeBase, start: plan.start, end: plan.end)
    }

    /// Pumps every packet, drains every lane and writes the trailer.
    func run() throws(ConvertError) {
        // The index goes to the front after the trailer (FastStart), not by the muxer's second pass.
        let movesIndex = plan.format.options.contains(.faststart)
        try muxer.writeHeader(options: plan.format.options.filter { $0 != .faststart }.map { ($0.key, $0.value) })
        let startTime = demuxer.startTime
        // Seeking lands on the keyframe at or before the start; the filters trim the rest.
        if plan.start > 0 { demuxer.seek(to: plan.start) }
        guard let primary = plan.lanes.first?.stream.index else { return }
        let total = (plan.end.map { min($0, demuxer.duration ?? $0) } ?? demuxer.duration ?? 0) - plan.start
        let packet = try Packet()
        var reached = Reached()
        var stoppedAtEnd = false
        var primaryPackets = 0
        var packets = 0
        var timing = FrameRateTiming()
        // What every packet needs of its stream, looked up once per stream rather than per packet
        // (a remux of a long clip handles hundreds of thousands of packets).
        var streams: [StreamTiming] = []
        let laneList = (0..<((lanes.keys.max() ?? -1) + 1)).map { lanes[$0] }
        while true {
            try cancellation.check()
            if try demuxer.read(into: packet) == .endOfFile { break }
            packets += 1
            if packets % Self.writeBehindInterval == 0 { writeBehind?.poll() }
            let index = packet.streamIndex
            // A stream found mid-file (MPEG-TS) joins the table when its first packet comes.
            while streams.count <= index {
                streams.append(StreamTiming(demuxer.stream(streams.count), start: startTime))
            }
            let stream = streams[index]
            let timeBase = stream.timeBase
            if plan.timesByFrameRate { timing.stamp(packet, stream: demuxer.stream(index)) }
            // Make timestamps zero-based like the ffmpeg CLI does, in the stream's own time base.
            packet.shiftTimestamps(by: stream.startShift)
            let time = packet.dts == Packet.noTimestamp ? nil : Double(packet.dts) * stream.seconds
            if let time { reached.anyStream = max(reached.anyStream ?? time, time) }
            guard let lane = index < laneList.count ? laneList[index] : nil else {
                packet.unref()
                continue
            }
            if index == primary {
                if let shownEnd = Self.presentationEnd(packet, timeBase: timeBase) {
                    reached.primary = max(reached.primary ?? shownEnd, shownEnd)
                }
                if let time {
                    if total > 0 { progress(min(max((time - plan.start) / total, 0), 1)) }
                    // Reordering never spans more than a second; past that the clip is complete.
                    if let end = plan.end, time > end + 1 {
                        packet.unref()
                        stoppedAtEnd = true
                        break
                    }
                }
            }
            if index == primary { primaryPackets += 1 }
            try lane.consume(packet)
            packet.unref()
        }
        // An output with a header and no data is no conversion; FFmpeg's Matroska muxer even
        // writes an unreadable file for it.
        guard primaryPackets > 0 else {
            throw ConvertError(
                code: .inputNoData,
                message:
                    "\(demuxer.path) has no readable data for its \(plan.format.muxer == .gif ? "video" : "main") stream.",
                path: demuxer.path)
        }
        if !stoppedAtEnd { try checkComplete(reached, primary: primary) }
        for index in plan.lanes.map(\.stream.index) {
            try cancellation.check()
            try lanes[index]?.finish()
        }
        try muxer.finish()
        try endEditLists()
        if movesIndex { try FastStart.apply(path: muxer.temporaryPath) }
        progress(1)
    }

    /// Ends each copied track's edit where the source's ends (see ``EditListEnd``).
    private func endEditLists() throws(ConvertError) {
        guard plan.format.isISOBMFF else { return }
        var trims: [Int: Double] = [:]
        for case let lane as CopyLane in lanes.values where lane.excessEnd > 0 {
            trims[lane.outputIndex] = lane.excessEnd
        }
        try EditListEnd.shorten(path: muxer.temporaryPath, by: trims)
    }
}

extension FramePump {
    /// One input stream's timing as the packet loop uses it.
    struct StreamTiming {
        var timeBase: Rational
        /// Seconds per tick of ``timeBase``.
        var seconds: Double
        /// The container's start in ticks of ``timeBase``, taken off every timestamp.
        var startShift: Int64

        init(_ stream: Demuxer.Stream, start: Int64) {
            timeBase = stream.timeBase
            seconds = timeBase.doubleValue
            startShift = Rational.microseconds.rescale(start, to: timeBase)
        }
    }

    /// The latest packet times (seconds) the loop read.
    struct Reached {
        /// Of the primary (first kept) stream.
        var primary: Double?
        /// Of any stream, kept or not.
        var anyStream: Double?
    }

    /// Where `packet`'s frame stops being shown (seconds): its presentation time plus its
    /// duration. With B-frames the last packet read is not the last frame shown, and at 1 fps
    /// one frame is a second, so its decode time says little about where the clip ends.
    static func presentationEnd(_ packet: Packet, timeBase: Rational) -> Double? {
        let start = packet.pts != Packet.noTimestamp ? packet.pts : packet.dts
        guard start != Packet.noTimestamp else { return nil }
        return Double(start + max(0, packet.duration)) * timeBase.doubleValue
    }

    /// Throws `input.truncated` when the file ended well before the duration its index
    /// announces: the end of the data is missing (a copy or download cut short), and converting
    /// what is there would silently drop the rest.
    ///
    /// The primary stream is held to its own duration when the container states one; otherwise
    /// (Matroska) the latest packet of any stream is held to the container's duration, so a video
    /// track that simply ends before its sound is not mistaken for a cut.
    private func checkComplete(_ reached: Reached, primary: Int) throws(ConvertError) {
        let ending = demuxer.isISOBMFF ? MovieEnding(path: demuxer.path) : nil
        // A fragmented MP4's header durations are not its length; its last box tells.
        if let ending, ending.isFragmented {
            guard !ending.isCutShort else {
                throw ConvertError(
                    code: .inputTruncated,
                    message: "\(demuxer.path) is incomplete: its last fragment is cut short.", path: demuxer.path)
            }
            return
        }
        let expected: Double
        let last: Double
        if let own = demuxer.stream(primary).snapshot?.duration, own > 0 {
            (expected, last) = (own, reached.primary ?? 0)
        } else if let container = demuxer.duration, container > 0 {
            (expected, last) = (container, reached.anyStream ?? 0)
        } else {
            return
        }
        // The last packet starts one frame before the end; half a second (or 2 %) more is slack
        // for long final frames and edit lists.
        // A box cut at the end of the file is proof enough, however short the clip.
        if ending?.isCutShort == true || last + max(0.5, expected * 0.02) < expected {
            let (reachedText, expectedText) = (FramePump.seconds(min(last, expected)), FramePump.seconds(expected))
            throw ConvertError(
                code: .inputTruncated,
                message:
                    "\(demuxer.path) is incomplete: the file ends early, its data ends at \(reachedText) of \(expectedText).",
                path: demuxer.path)
        }
    }

    /// A time as the truncation message gives it: tenths under 10 s ("1.1 s"), whole seconds above.
    static func seconds(_ value: Double) -> String {
        value < 10 ? "\(Double((value * 10).rounded(.down)) / 10) s" : "\(Int(value.rounded(.down))) s"
    }
}
