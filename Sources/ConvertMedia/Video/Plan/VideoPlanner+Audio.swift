import ConvertCore
internal import FFmpegLayer

extension VideoPlanner {
    /// The first AAC track (copied when the container takes it), else the first decodable audio
    /// track re-encoded to the container's audio codec; nil when there is no usable audio.
    static func audioLane(media: MediaSnapshot, format: OutputFormat, path: String) throws(ConvertError) -> LanePlan? {
        let audioStreams = media.streams.filter { $0.kind == .audio }
        if let aac = audioStreams.first(where: \.isAAC), accepts(format, audioCodec: .aac) {
            return .copy(aac)
        }
        if let first = audioStreams.first(where: { accepts(format, audioCodec: $0.codec) }) {
            return .copy(first)
        }
        guard let source = audioStreams.first(where: \.decodable) else { return nil }
        return .audio(source, audioEncoding(for: format, source: source))
    }

    /// The audio lanes for `choice`: ``audioLane(media:format:path:)`` for `.automatic`, else the
    /// chosen tracks, each copied when the container takes its codec and re-encoded otherwise.
    static func audioLanes(
        media: MediaSnapshot, format: OutputFormat, path: String,
        choice: AudioTrackChoice
    ) throws(ConvertError) -> [LanePlan] {
        let audioStreams = media.streams.filter { $0.kind == .audio }
        let chosen: [StreamSnapshot]
        switch choice {
        case .automatic:
            return try audioLane(media: media, format: format, path: path).map { [$0] } ?? []
        case .track(let number):
            guard (1...max(audioStreams.count, 1)).contains(number), number <= audioStreams.count else {
                throw ConvertError(
                    code: .requestAudioTrack,
                    message: "\(path) has \(audioStreams.count) audio track\(audioStreams.count == 1 ? "" : "s"), "
                        + "so there is no audio track \(number).", path: path)
            }
            chosen = [audioStreams[number - 1]]
        case .all:
            chosen = audioStreams
        }
        var lanes: [LanePlan] = []
        for stream in chosen {
            if accepts(format, audioCodec: stream.codec) {
                lanes.append(.copy(stream))
            } else if stream.decodable {
                lanes.append(.audio(stream, audioEncoding(for: format, source: stream)))
            } else {
                throw ConvertError(
                    code: .unsupportedCodec,
                    message: "\(path) has sound in a codec this build of FFmpeg cannot decode.", path: path)
            }
        }
        return lanes
    }

    /// Notes for the tracks not kept: each audio track named (number, language, codec, channels)
    /// with whether the request could keep it, telemetry named, the other tracks counted by what
    /// they are (timecode, timed metadata, data, video, attachments).
    static func leftOutNotes(media: MediaSnapshot, kept: [LanePlan], offerChoice: Bool, offersAll: Bool = true)
        -> [JobNote]
    {
        let keptIndices = Set(kept.map(\.stream.index))
        let audioStreams = media.streams.filter { $0.kind == .audio }
        var notes: [JobNote] = []
        for (position, stream) in audioStreams.enumerated() where !keptIndices.contains(stream.index) {
            var description = [stream.language, soundName(stream)].compactMap { $0 }
            if stream.channels > 0 {
                description.append(
                    stream.channels == 1 ? "mono" : stream.channels == 2 ? "stereo" : "\(stream.channels) ch")
            }
            let track = JobNote.AudioTrackLeftOut(
                position: position + 1, description: description.joined(separator: " "), canChoose: offerChoice,
                canKeepAll: offerChoice && offersAll)
            notes.append(
                JobNote(
                    .audioTrackLeftOut, "audio track \(track.position) (\(track.description)) left out",
                    detail: .audioTrackLeftOut(track)))
        }
        // A chapter track is written again as the output's chapters; subtitles and covers have
        // notes of their own, and so has telemetry (it records where the video was made).
        let leftOut = media.streams.filter {
            $0.kind != .audio && $0.kind != .subtitle && !$0.isChapterTrack && !$0.isAttachedPicture
                && !keptIndices.contains($0.index)
        }
        if let telemetry = telemetryNote(leftOut) { notes.append(telemetry) }
        return notes + otherTrackNotes(leftOut.filter { !isTelemetry($0) }).map(JobNote.init(fact:))
    }

    /// A sound codec as people know it (`AAC`, `MP3`, `PCM`), for notes.
    static func soundName(_ stream: StreamSnapshot) -> String {
        if stream.codecName.hasPrefix("pcm_") { return "PCM" }
        let names = [
            "aac": "AAC", "mp3": "MP3", "opus": "Opus", "vorbis": "Vorbis", "flac": "FLAC", "alac": "ALAC",
            "truehd": "TrueHD",
            "ac3": "AC-3", "eac3": "E-AC-3", "none": stream.codecTag.isEmpty ? "unknown" : stream.codecTag,
        ]
        return names[stream.codecName] ?? stream.codecName
    }

    /// The audio encoder for a container.
    /// Surround sound keeps its channels (up to 7.1) in every format but MP3, which holds two;
    /// `maxChannels` lowers that (a size target's sound budget is stereo).
    /// `bitRate` (asked for: `--bitrate`) replaces the format's usual rate and its cap.
    static func audioEncoding(
        for format: OutputFormat, source: StreamSnapshot, maxChannels: Int32 = 8,
        bitRate asked: Int64? = nil
    ) -> AudioEncoding {
        let limit = min(maxChannels, format.muxer == .mp3 ? 2 : 8)
        let channels = max(1, min(source.channels, limit))
        let rate = { (usual: Int64) in asked ?? capped(usual, source: source) }
        switch format.muxer {
        case .matroska, .webm, .opus:
            let usual: Int64 = channels == 1 ? 64_000 : channels == 2 ? 128_000 : 48_000 * Int64(channels)
            return AudioEncoding(encoder: "libopus", sampleRate: 48000, channels: channels, bitRate: rate(usual))
        case .mp3:
            return AudioEncoding(encoder: "libmp3lame", sampleRate: nil, channels: channels, bitRate: rate(192_000))
        case .flac:
            return AudioEncoding(encoder: "flac", sampleRate: nil, channels: channels, bitRate: nil)
        case .wav:
            return AudioEncoding(encoder: "pcm_s16le", sampleRate: nil, channels: channels, bitRate: nil)
        default:
            let usual: Int64 = channels == 1 ? 96_000 : channels == 2 ? 160_000 : 64_000 * Int64(channels)
            return AudioEncoding(encoder: "aac", sampleRate: nil, channels: channels, bitRate: rate(usual))
        }
    }

    /// `rate`, lowered for a lossy source coded with fewer bits (a 24 kb/s voice memo): the source's
    /// rate rounded up to a whole 8 kb/s, so re-encoding never makes the sound bigger than it was
    /// (a lossy copy of a lossy sound has no more detail to spend them on). Lossless and unknown
    /// rates leave `rate` as it is.
    static func capped(_ rate: Int64, source: StreamSnapshot) -> Int64 {
        let lossless =
            source.codec == .flac || source.codecName.hasPrefix("pcm_")
            || VideoConverter.losslessCodecs.contains(source.codecName)
        guard !lossless, let sourceRate = source.bitRate, sourceRate > 0 else { return rate }
        let step: Int64 = 8_000
        return min(rate, (Int64(sourceRate) + step - 1) / step * step)
    }

    /// "audio re-encoded", or for lossless sound written as FLAC "TrueHD sound kept lossless as FLAC".
    static func reencodedNote(_ lane: LanePlan) -> String {
        guard case .audio(let source, let encoding) = lane, encoding.encoder == "flac",
            VideoConverter.losslessCodecs.contains(source.codecName) || source.codec == .flac
        else { return "audio re-encoded" }
        return "\(soundName(source)) sound kept lossless as FLAC"
    }

    /// "5.1 sound downmixed to stereo: MP3 holds two channels", for a lane that lost channels.
    static func downmixNote(_ lane: LanePlan, format: OutputFormat) -> String? {
        guard case .audio(let source, let encoding) = lane, source.channels > encoding.channels else { return nil }
        let from = source.channelLayout ?? "\(source.channels)-channel"
        let to = encoding.channels == 1 ? "mono" : encoding.channels == 2 ? "stereo" : "\(encoding.channels) channels"
        let reason = format.muxer == .mp3 ? ": MP3 holds two channels" : ""
        return "\(from) sound downmixed to \(to)\(reason)"
    }

    /// Plans an audio extraction.
    static func extractAudio(_ request: AudioExtractionRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan
    {
        let path = request.input
        let format = OutputFormat.audio(request.format)
        let audioStreams = media.streams.filter { $0.kind == .audio }
        let all = request.audioTrack == .all && audioStreams.count > 1
        if all && request.format != .m4a {
            throw ConvertError(
                code: .requestAllAudio,
                message:
                    "Every audio track goes into one .m4a; a .\(request.format.fileExtension) file holds one sound track.",
                path: path)
        }
        // One track only: --all-audio of a clip with one track is that track.
        let choice: AudioTrackChoice = all ? .all : request.audioTrack == .all ? .automatic : request.audioTrack
        var lanes = try audioLanes(media: media, format: format, path: path, choice: choice)
        guard !lanes.isEmpty else {
            let hasAudio = !audioStreams.isEmpty
            throw ConvertError(
                code: hasAudio ? .unsupportedCodec : .inputNoAudio,
                message: hasAudio
                    ? "\(path) has sound in a codec this build of FFmpeg cannot decode."
                    : "\(path) has no sound to extract.", path: path)
        }
        let cut = try cutRange(start: request.start, duration: request.duration, input: path, media: media)
        if let asked = request.bitRate, format.muxer == .flac || format.muxer == .wav {
            throw ConvertError(
                code: .requestBitrate,
                message: "A bitrate (\(asked / 1000) kb/s) applies to MP3, AAC and Opus "
                    + "sound; .\(request.format.fileExtension) is lossless.", path: path)
        }
        if cut != nil || request.bitRate != nil {
            // A cut falls on the exact sample, and an asked bitrate is a new encode: the kept
            // sound is decoded and encoded again.
            lanes = lanes.map { lane in
                var encoding = audioEncoding(for: format, source: lane.stream, bitRate: request.bitRate.map(Int64.init))
                if let cut { encoding.trim = "atrim=start=\(cut.start):duration=\(cut.length),asetpts=PTS-STARTPTS" }
                return .audio(lane.stream, encoding)
            }
        }
        var notes: [JobNote] = JobNote.facts(cut.map { [cutNote($0)] } ?? [])
        if all && cut != nil {
            notes.append("\(lanes.count) audio tracks re-encoded")
        } else if all {
            notes.append(
                lanes.allSatisfy(\.isCopy)
                    ? "\(lanes.count) audio tracks copied without re-encoding"
                    : "\(lanes.count) audio tracks saved")
            for (position, stream) in audioStreams.enumerated()
            where lanes.contains(where: { !$0.isCopy && $0.stream.index == stream.index }) {
                notes.append("audio track \(position + 1) (\(soundName(stream))) re-encoded")
            }
        } else {
            let rate = request.bitRate.map { " at \($0 / 1000) kb/s" } ?? ""
            notes.append(lanes[0].isCopy ? "audio copied without re-encoding" : reencodedNote(lanes[0]) + rate)
            if let downmix = downmixNote(lanes[0], format: format) { notes.append(downmix) }
            notes += leftOutNotes(media: media, kept: lanes, offerChoice: true).filter { $0.code == .audioTrackLeftOut }
        }
        let covers = coverArt(media: media, format: format)
        lanes += covers.lanes
        notes += covers.notes
        notes += chapterNotes(media: media, format: format, cut: cut)
        var plan = VideoPlan(format: format, lanes: lanes, keepLocation: request.keepLocation, notes: notes)
        if let cut { (plan.start, plan.end) = (cut.start, cut.start + cut.length) }
        plan.keepIdentifiers = request.keepMetadata
        return plan
    }
}
