import ConvertCore
internal import FFmpegLayer

/// Text subtitle tracks whose cues are a drone's telemetry (``TelemetryCue``): found for the
/// probe and the planner, and blanked in place for the location stripper.
///
/// The cues are read as packets, every other stream discarded, so no picture or sound is read
/// out; a subtitle track is telemetry when most of its first cues are. For MP4 and MOV a cue's
/// packet is its sample as stored (`mov_text`: a length, then the text), at the file position the
/// demuxer gives: the blanked bytes are patches at that position, checked against the file first.
enum SubtitleTelemetry {
    /// The cues read from each track to decide whether it is telemetry.
    static let sampledCues = 5
    /// The most cues read in all (a day of one-a-frame cues is 2.6 million): more is not read.
    static let maximumCues = 1_000_000
    /// The subtitle codecs whose packets are text.
    static let textCodecs: Set<String> = ["subrip", "mov_text", "ass", "ssa", "webvtt", "text"]

    /// What the telemetry subtitle tracks hold.
    struct Found {
        /// The stream indices of the telemetry tracks.
        var streams: Set<Int> = []
        /// The cues with a position in those tracks (all of them only when the whole file was read).
        var cues = 0
        /// Same-length patches (file offsets) blanking every position, for MP4/MOV.
        var patches: [LocationStripper.Patch] = []
        /// Whether a cue could not be matched to its bytes in the file, so could not be patched.
        var unpatched = false
    }

    /// The telemetry subtitle tracks of the file at `path`: from the first cues of each text
    /// subtitle track, or with `whole`, every cue counted and (with `source`) patched. Nil when
    /// the file has no text subtitle track or no telemetry in one.
    static func scan(path: String, whole: Bool, source: (any ByteSource)? = nil) throws(ConvertError) -> Found? {
        let demuxer = try Demuxer(path: path)
        var tracks: [Int: Track] = [:]
        for index in 0..<demuxer.streamCount {
            let stream = demuxer.stream(index)
            if let snapshot = stream.snapshot, snapshot.kind == .subtitle, textCodecs.contains(snapshot.codecName) {
                tracks[index] = Track()
            } else {
                stream.discard()
            }
        }
        guard !tracks.isEmpty else { return nil }
        let packet = try Packet()
        var read = 0
        while read < maximumCues, try demuxer.read(into: packet) == .packet {
            defer { packet.unref() }
            read += 1
            guard var track = tracks[packet.streamIndex], let cue = packet.withPayload({ Array($0) }) else { continue }
            track.add(cue, at: packet.filePosition, source: whole ? source : nil)
            tracks[packet.streamIndex] = track
            if !whole && tracks.values.allSatisfy({ $0.seen >= sampledCues }) { break }
        }
        var found = Found()
        for (index, track) in tracks where track.isTelemetry {
            found.streams.insert(index)
            found.cues += track.located
            found.patches += track.patches
            found.unpatched = found.unpatched || track.unpatched
        }
        return found.streams.isEmpty ? nil : found
    }

    /// What the cues of one text subtitle track were found to hold.
    private struct Track {
        /// Cues read.
        var seen = 0
        /// Cues with a position among the first ``SubtitleTelemetry/sampledCues``.
        var locatedFirst = 0
        /// Cues with a position.
        var located = 0
        var patches: [LocationStripper.Patch] = []
        var unpatched = false

        /// Most of the first cues decide: a film's subtitle that quotes a position once is no log.
        var isTelemetry: Bool { locatedFirst * 2 > min(seen, SubtitleTelemetry.sampledCues) }

        /// Counts `cue`, and with `source` adds the patches blanking its positions.
        mutating func add(_ cue: [UInt8], at position: Int64?, source: (any ByteSource)?) {
            seen += 1
            guard TelemetryCue.isTelemetry(cue) else { return }
            located += 1
            if seen <= SubtitleTelemetry.sampledCues { locatedFirst += 1 }
            if let source { patch(cue, at: position, source: source) }
        }

        /// Adds the patches blanking `cue`'s positions at `position` in the file, when the file
        /// holds the cue's bytes there; otherwise marks the track unpatched.
        private mutating func patch(_ cue: [UInt8], at position: Int64?, source: any ByteSource) {
            guard let position, position >= 0, UInt64(position) + UInt64(cue.count) <= source.size,
                cue.count <= GPMFTelemetry.maximumSampleSize,
                let stored = try? source.read(at: UInt64(position), count: cue.count), stored == cue
            else {
                unpatched = true
                return
            }
            let blanked = TelemetryCue.blanked(cue)
            for range in TelemetryCue.positions(in: cue).ranges {
                patches.append(.init(offset: Int(position) + range.lowerBound, bytes: Array(blanked[range])))
            }
        }
    }
}
