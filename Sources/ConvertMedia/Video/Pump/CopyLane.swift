import ConvertCore
internal import FFmpegLayer

/// Passthrough: a kept stream whose packets are copied into the output unchanged.
///
/// Used for every stream of a passthrough plan (a remux, about as fast as copying the file) and
/// for compatible streams of a partial re-encode (e.g. AAC audio next to re-encoded video).
/// Only the kept streams get an output stream, so data tracks FFmpeg cannot even name (mebx,
/// mett, tmcd, APAC audio) never reach the muxer.
final class CopyLane: PumpLane {
    private let inputTimeBase: Rational
    private let output: Muxer.Stream
    /// The output stream's time base, read at the first packet: the muxer sets it when it writes
    /// the header, after this lane is made, and never changes it afterwards.
    private lazy var outputTimeBase = output.timeBase
    private let muxer: Muxer
    private let packetCopy: Packet
    /// The timestamps written so far, and how the next must follow them.
    private var repair: TimestampRepair
    /// The first packets of a video stream, held until ``dtsShift`` is known.
    private var pending: [Packet] = []
    /// How far DTS are moved back (output time base) so that none is after its PTS; nil until
    /// the first ``lookahead`` video packets were seen (always 0 for other streams).
    private var dtsShift: Int64?
    /// Packets looked at to find the shift: more than any reorder depth H.264/HEVC allow.
    private static let lookahead = 32
    /// Whether packets flagged `AV_PKT_FLAG_DISCARD` are left out (outputs without edit lists).
    private let dropsHidden: Bool
    private let isVideo: Bool
    /// Hidden video packets not yet followed by a shown one (see ``holdOrWrite(_:hidden:)``).
    private var trailingHidden: [Packet] = []
    /// The end of the last presented shown packet (input time base, zero-based like the packets).
    private var shownEnd: Int64?
    /// The end of the last presented packet written (output time base), where the muxer ends its
    /// own edit.
    private var writtenEnd: Int64?
    /// The end of the stream's edit in the source (input time base, zero-based), when known.
    private let sourceEnd: Int64?
    /// The output stream's index, the muxer's track number.
    let outputIndex: Int
    /// The sample rate whose end trims are carried into packet durations, for an Ogg output
    /// (nil otherwise; see ``carryEndTrim(_:)``).
    private let endTrimRate: Int32?

    /// `containerStart` (`AV_TIME_BASE` units) is what the pump subtracts from every timestamp;
    /// `editListInput` says the demuxer is FFmpeg's MOV/MP4 one, whose stream durations are
    /// their edit lists' and so where the source stops playing.
    init(
        input: Demuxer.Stream, muxer: Muxer, format: OutputFormat, containerStart: Int64 = 0,
        editListInput: Bool = false
    ) throws(ConvertError) {
        inputTimeBase = input.timeBase
        self.muxer = muxer
        if editListInput && format.isISOBMFF, input.duration != Packet.noTimestamp, input.duration > 0 {
            let start = input.startTime == Packet.noTimestamp ? 0 : input.startTime
            sourceEnd = start + input.duration - Rational.microseconds.rescale(containerStart, to: input.timeBase)
        } else {
            sourceEnd = nil
        }
        packetCopy = try Packet()
        repair = TimestampRepair(nonStrict: muxer.acceptsEqualTimestamps, unset: Packet.noTimestamp)
        dropsHidden = !format.isISOBMFF
        isVideo = input.isVideo
        dtsShift = isVideo ? nil : 0
        output = try muxer.addStream(
            copying: input, codecTag: { CopyLane.codecTag(for: $0, in: format) },
            sideData: StreamSideData.allKept)
        outputIndex = output.index
        let rate = input.snapshot?.sampleRate ?? 0
        endTrimRate = format.muxer == .opus && rate > 0 ? rate : nil
        if input.hasDolbyVisionConfiguration {
            // movenc writes the dvcC/dvvC box only at "unofficial" compliance; without it a copied
            // Dolby Vision stream would silently lose its configuration.
            muxer.allowUnofficialBoxes()
        }
    }

    /// The codec tag for the output: MP4/MOV keep the standard sample entries (`avc1`, `hvc1`,
    /// `hev1`) that say how parameter sets are stored; everything else lets the muxer choose
    /// (tag 0), since a tag from another container is often invalid there.
    static func codecTag(for stream: StreamSnapshot, in format: OutputFormat) -> UInt32 {
        guard format.isISOBMFF else { return 0 }
        let tag = stream.codecTag
        if ["avc1", "avc3", "hvc1", "hev1", "av01"].contains(tag) { return fourCC(tag) }
        // MP4 files label MP3 `mp4a` too (by object type); QuickTime names it `.mp3` itself.
        if tag == "mp4a" && stream.codec == .aac { return fourCC(tag) }
        if stream.codec == .hevc { return fourCC("hvc1") }
        return 0
    }

    /// A little-endian four-character code, as `MKTAG` builds it.
    static func fourCC(_ text: String) -> UInt32 {
        var value: UInt32 = 0
        for (index, byte) in text.utf8.prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
        return value
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        // Only MP4/MOV write an edit list; elsewhere a packet the source's edit list hides (AAC
        // priming, audio before a trimmed start) would be heard, so it is left out.
        let hidden = packet.isDiscarded
        if dropsHidden && hidden { return }
        if !hidden, let end = packet.presentationEnd { shownEnd = max(shownEnd ?? end, end) }
        let copy = dtsShift == nil ? try Packet() : packetCopy
        // Take the payload (the pump has no further use for the packet; no reference to
        // allocate and free for each of a long clip's hundreds of thousands of packets); the
        // muxer takes it in turn.
        copy.takeForWriting(packet)
        copy.rescaleTimestamps(from: inputTimeBase, to: outputTimeBase)
        copy.streamIndex = outputIndex
        carryEndTrim(copy)
        guard dtsShift != nil else {
            pending.append(copy)
            if pending.count >= Self.lookahead { try settle() }
            return
        }
        try holdOrWrite(copy, hidden: hidden)
    }

    /// Shortens the last packet of an Opus copy by the samples its source says to drop at the end
    /// (Matroska's DiscardPadding, 953 samples for a second of sound): FFmpeg's Ogg muxer sets the
    /// final granule position from the packet's time and duration and ignores that side data, so
    /// the copy would play the encoder's padding as extra sound.
    private func carryEndTrim(_ packet: Packet) {
        guard let endTrimRate, case let trim = packet.endTrimSamples, trim > 0, packet.duration > 0 else { return }
        let ticks = Rational(1, endTrimRate).rescale(Int64(trim), to: outputTimeBase)
        packet.duration = max(0, packet.duration - ticks)
    }

    /// How much longer (seconds) the muxer's edit of this stream would play than the source's:
    /// the hidden frames presented after the last shown one, and the part of the last frame the
    /// source's edit list cuts off. Zero when the output has no edit list to end.
    var excessEnd: Double {
        guard !dropsHidden, let writtenEnd, let shownEnd else { return 0 }
        let end = Double(min(shownEnd, sourceEnd ?? shownEnd)) * inputTimeBase.doubleValue
        let written = Double(writtenEnd) * outputTimeBase.doubleValue
        return end > 0 && end < written ? written - end : 0
    }

    /// Hidden video packets are held until a shown one follows. Phones end a clip's edit list a
    /// frame before its last sample; a muxer would stretch its own edit list over that frame and
    /// the copy would show one frame more than the source. Packets still held at the end come
    /// last in decoding order, so no other frame needs them, and they are left out.
    private func holdOrWrite(_ packet: Packet, hidden: Bool) throws(ConvertError) {
        if hidden && isVideo {
            let held = try Packet()
            held.take(packet)
            trailingHidden.append(held)
            return
        }
        for held in trailingHidden { try write(held) }
        trailingHidden.removeAll()
        try write(packet)
    }

    /// Some camera files (iPhone MOVs with B-frames) give packets whose DTS is later than their
    /// PTS by a constant reorder delay. Moving every DTS back by the largest such excess, measured
    /// over the first packets, makes them valid without touching any PTS, so the display order and
    /// timing stay exactly as recorded. Muxers turn the now negative first DTS into an edit list.
    private func settle() throws(ConvertError) {
        dtsShift = TimestampRepair.reorderShift(pending.map { ($0.pts, $0.dts) }, unset: Packet.noTimestamp)
        let held = pending
        pending.removeAll()
        for packet in held { try holdOrWrite(packet, hidden: packet.isDiscarded) }
    }

    /// Packets still invalid after the shift are repaired before the muxer sees them (see
    /// ``TimestampRepair``), so it neither refuses them nor warns and guesses.
    private func write(_ packet: Packet) throws(ConvertError) {
        if let shift = dtsShift, shift > 0, packet.dts != Packet.noTimestamp { packet.dts -= shift }
        (packet.pts, packet.dts) = repair.repair(pts: packet.pts, dts: packet.dts)
        if let end = packet.presentationEnd { writtenEnd = max(writtenEnd ?? end, end) }
        try muxer.write(packet)
    }

    func finish() throws(ConvertError) {
        if dtsShift == nil { try settle() }
        trailingHidden.removeAll()
    }

    var damagedPackets: Int { 0 }
}
