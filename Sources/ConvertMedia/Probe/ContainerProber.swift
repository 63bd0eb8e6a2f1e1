import ConvertCore
internal import FFmpegLayer

/// Builds a ``ContainerInfo`` from an open ``Demuxer``, merging what our MP4 box reader found.
///
/// For MP4/MOV the sample-entry boxes (`dvcC`/`dvvC`/`dvwC`, `colr`, `mdcv`, `clli`) win and
/// FFmpeg's stream side data is the cross-check: a disagreement becomes a warning. For other
/// containers FFmpeg's side data is all there is.
struct ContainerProber {
    let demuxer: Demuxer
    let movie: ISOMovie?

    func containerInfo() -> ContainerInfo {
        var info = ContainerInfo(demuxer: demuxer.formatName.isEmpty ? "unknown" : demuxer.formatName)
        info.durationSeconds = demuxer.duration
        info.bitRate = demuxer.bitRate
        info.brand = movie?.majorBrand?.description
        let tags = demuxer.metadata
        info.location =
            movie?.location ?? tags.first(where: { $0.key == "location" })?.value
            ?? tags.first(where: { $0.key == MovieBoxScanner.locationKey })?.value
        for index in 0..<demuxer.streamCount {
            info.tracks.append(track(index, warnings: &info.warnings))
        }
        // As the file states them, as ffprobe shows them (not moved with a negative start time).
        info.chapters = demuxer.storedChapters.map { chapter in
            ChapterInfo(start: chapter.start, end: chapter.end, title: chapter.tags.first { $0.key == "title" }?.value)
        }
        return info
    }

    private func track(_ index: Int, warnings: inout [String]) -> TrackInfo {
        let stream = demuxer.stream(index)
        guard let snapshot = stream.snapshot else {
            return TrackInfo(index: index, kind: .unknown, codec: "unknown", decoderAvailable: false)
        }
        let boxes = isoTrack(id: snapshot.trackID, index: index)
        let entry = boxes?.sampleEntries.first
        let tag = snapshot.codecTag.isEmpty ? nil : snapshot.codecTag
        let known = snapshot.codec != .none
        var track = TrackInfo(
            index: index, trackID: snapshot.trackID > 0 ? snapshot.trackID : nil, kind: kind(snapshot.kind),
            codec: known ? snapshot.codecName : entry?.format.description ?? tag ?? "unknown",
            codecTag: entry?.format.description ?? tag, decoderAvailable: known && snapshot.decodable,
            handler: boxes?.handler?.description, profile: snapshot.profileName, language: snapshot.language,
            bitRate: snapshot.bitRate, durationSeconds: snapshot.duration)
        if stream.isAttachedPicture { track.coverArt = true }
        switch track.kind {
        case .video:
            track.video = video(snapshot, stream: stream, entry: entry, name: "track \(index)", warnings: &warnings)
        case .audio:
            track.audio = AudioTrackInfo(channels: Int(snapshot.channels), sampleRate: Int(snapshot.sampleRate))
            track.audio?.channelLayout = snapshot.channelLayout
            track.audio?.sampleFormat = snapshot.sampleFormat.name
        default:
            break
        }
        return track
    }

    /// The box reader's track for FFmpeg stream `index` (the mov demuxer sets `AVStream.id` to
    /// the `tkhd` track_ID).
    private func isoTrack(id: Int, index: Int) -> ISOTrack? {
        guard let movie else { return nil }
        if let match = movie.tracks.first(where: { $0.trackID == id }) { return match }
        return movie.tracks.count == demuxer.streamCount ? movie.tracks[index] : nil
    }

    private func video(
        _ snapshot: StreamSnapshot, stream: Demuxer.Stream, entry: ISOSampleEntry?, name: String,
        warnings: inout [String]
    ) -> VideoTrackInfo {
        var video = VideoTrackInfo(width: Int(snapshot.width), height: Int(snapshot.height))
        if snapshot.rotation != 0 || snapshot.mirrored {
            let clockwise = Int((-snapshot.rotation / 90).rounded()) * 90
            video.rotation = ((clockwise % 360) + 360) % 360
            video.mirrored = snapshot.mirrored
            // The public sizes are as displayed.
            if video.rotation % 180 == 90 { (video.width, video.height) = (video.height, video.width) }
        }
        video.frameRate = snapshot.frameRate
        if snapshot.isInterlaced { video.interlaced = snapshot.topFieldFirst ? .topFirst : .bottomFirst }
        video.pixelFormat = snapshot.pixelFormat.name
        video.bitDepth = snapshot.pixelFormat.bitDepth
        video.color = color(snapshot.color, box: entry?.color, name: name, warnings: &warnings)
        let record = dolbyVision(snapshot.dolbyVision, box: entry?.dolbyVision, name: name, warnings: &warnings)
        video.dynamicRange = DynamicRange.classify(transfer: video.color.transfer, dolbyVision: record)
        if entry?.isStereo == true { video.stereoscopic = true }
        let ffmpegMastering = stream.masteringDisplay
        video.masteringDisplay = entry?.masteringDisplay ?? ffmpegMastering
        if let box = entry?.masteringDisplay, let ffmpegMastering, !box.approximatelyEqual(ffmpegMastering) {
            warnings.append("\(name): the mdcv box and FFmpeg disagree on the mastering display; using the box")
        }
        let ffmpegLight = stream.contentLight
        video.contentLight = entry?.contentLight ?? ffmpegLight
        if let box = entry?.contentLight, let ffmpegLight, box != ffmpegLight {
            warnings.append(
                "\(name): the clli box says MaxCLL \(box.maxCLL) but FFmpeg reports \(ffmpegLight.maxCLL); using the box"
            )
        }
        return video
    }

    /// The stream's colour: the `colr` box wins over FFmpeg's parameters, with a warning when they
    /// disagree on primaries or transfer.
    private func color(
        _ fromFFmpeg: ColorDescription, box: ColorDescription?, name: String, warnings: inout [String]
    ) -> ColorDescription {
        guard let box else { return fromFFmpeg }
        var color = fromFFmpeg
        if let icc = box.iccProfileBytes {
            color.iccProfileBytes = icc
            return color
        }
        color.primaries = box.primaries
        color.transfer = box.transfer
        color.matrix = box.matrix
        if box.range != .unspecified { color.range = box.range }
        if !fromFFmpeg.transfer.isUnspecified && fromFFmpeg.transfer != color.transfer
            || !fromFFmpeg.primaries.isUnspecified && fromFFmpeg.primaries != color.primaries
        {
            warnings.append(
                "\(name): the colr box says \(color.primaries)/\(color.transfer) but FFmpeg reports "
                    + "\(fromFFmpeg.primaries)/\(fromFFmpeg.transfer); using the colr box")
        }
        return color
    }

    /// The Dolby Vision record: the sample entry's box wins over FFmpeg's, with a warning when
    /// FFmpeg disagrees or misses it.
    private func dolbyVision(
        _ fromFFmpeg: DolbyVisionConfiguration?, box: DolbyVisionConfiguration?, name: String, warnings: inout [String]
    ) -> DolbyVisionConfiguration? {
        guard let box else { return fromFFmpeg }
        if let fromFFmpeg, !box.sameRecord(as: fromFFmpeg) {
            warnings.append(
                "\(name): the \(box.configurationBox ?? "Dolby Vision") box says Dolby Vision "
                    + "\(box.name) level \(box.level) but FFmpeg reports \(fromFFmpeg.name) level "
                    + "\(fromFFmpeg.level); using the box")
        } else if fromFFmpeg == nil {
            warnings.append("\(name): FFmpeg does not report the \(box.configurationBox ?? "Dolby Vision") box")
        }
        return box
    }

    private func kind(_ kind: StreamSnapshot.Kind) -> TrackKind {
        switch kind {
        case .video: .video
        case .audio: .audio
        case .subtitle: .subtitle
        case .data: .data
        case .attachment: .attachment
        case .other: .unknown
        }
    }
}
