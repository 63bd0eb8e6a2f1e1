internal import CFFmpeg
import ConvertCore

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
        info.location = movie?.location ?? tags.first(where: { $0.key == "location" })?.value
            ?? tags.first(where: { $0.key == MovieBoxScanner.locationKey })?.value
        for index in 0..<demuxer.streamCount {
            info.tracks.append(track(index, warnings: &info.warnings))
        }
        return info
    }

    private func track(_ index: Int, warnings: inout [String]) -> TrackInfo {
        demuxer.stream(index).withUnsafeStream { track($0, index: index, warnings: &warnings) }
    }

    private func track(_ stream: UnsafeMutablePointer<AVStream>, index: Int, warnings: inout [String]) -> TrackInfo {
        let parameters = stream.pointee.codecpar.pointee
        let id = Int(stream.pointee.id)
        let boxes = isoTrack(id: id, index: index)
        let entry = boxes?.sampleEntries.first
        let tag = fourCC(parameters.codec_tag)
        let known = parameters.codec_id != AV_CODEC_ID_NONE
        let codec = known ? String(cString: avcodec_get_name(parameters.codec_id))
            : entry?.format.description ?? tag ?? "unknown"
        var track = TrackInfo(
            index: index, trackID: id > 0 ? id : nil, kind: kind(parameters.codec_type), codec: codec,
            codecTag: entry?.format.description ?? tag,
            decoderAvailable: known && avcodec_find_decoder(parameters.codec_id) != nil,
            handler: boxes?.handler?.description)
        track.profile = avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) }
        track.language = metadata(stream.pointee.metadata, "language").flatMap { $0 == "und" ? nil : $0 }
        track.bitRate = parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil
        if stream.pointee.duration > 0, stream.pointee.duration != FFmpeg.noTimestamp, stream.pointee.time_base.den > 0 {
            track.durationSeconds = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }
        switch track.kind {
        case .video:
            track.video = video(stream, entry: entry, name: "track \(index)", warnings: &warnings)
        case .audio:
            track.audio = audio(parameters)
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
        _ stream: UnsafeMutablePointer<AVStream>, entry: ISOSampleEntry?, name: String, warnings: inout [String]
    ) -> VideoTrackInfo {
        let parameters = stream.pointee.codecpar.pointee
        var video = VideoTrackInfo(width: Int(parameters.width), height: Int(parameters.height))
        if let matrix = sideData(stream, AV_PKT_DATA_DISPLAYMATRIX, minimumSize: 36) {
            let values = matrix.assumingMemoryBound(to: Int32.self)
            let counterClockwise = av_display_rotation_get(values)
            if counterClockwise.isFinite {
                let clockwise = Int((-counterClockwise / 90).rounded()) * 90
                video.rotation = ((clockwise % 360) + 360) % 360
            }
            let determinant = Int64(values[0]) * Int64(values[4]) - Int64(values[1]) * Int64(values[3])
            video.mirrored = determinant < 0
        }
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        if rate.num > 0, rate.den > 0 { video.frameRate = av_q2d(rate) }
        let format = PixelFormat(rawValue: parameters.format)
        video.pixelFormat = format.name
        video.bitDepth = format.bitDepth

        var colour = ColourDescription(
            primaries: ColourPrimaries(code: Int(parameters.color_primaries.rawValue)),
            transfer: TransferCharacteristics(code: Int(parameters.color_trc.rawValue)),
            matrix: MatrixCoefficients(code: Int(parameters.color_space.rawValue)),
            range: parameters.color_range == AVCOL_RANGE_JPEG ? .full : parameters.color_range == AVCOL_RANGE_MPEG ? .limited : .unspecified)
        if let boxColour = entry?.colour {
            if let icc = boxColour.iccProfileBytes {
                colour.iccProfileBytes = icc
            } else {
                let fromFFmpeg = colour
                colour.primaries = boxColour.primaries
                colour.transfer = boxColour.transfer
                colour.matrix = boxColour.matrix
                if boxColour.range != .unspecified { colour.range = boxColour.range }
                if !fromFFmpeg.transfer.isUnspecified && fromFFmpeg.transfer != colour.transfer
                    || !fromFFmpeg.primaries.isUnspecified && fromFFmpeg.primaries != colour.primaries {
                    warnings.append("\(name): the colr box says \(colour.primaries)/\(colour.transfer) but FFmpeg reports "
                        + "\(fromFFmpeg.primaries)/\(fromFFmpeg.transfer); using the colr box")
                }
            }
        }
        video.colour = colour

        let ffmpegRecord = dolbyVision(stream)
        let record = entry?.dolbyVision ?? ffmpegRecord
        if let boxRecord = entry?.dolbyVision {
            if let ffmpegRecord, !boxRecord.sameRecord(as: ffmpegRecord) {
                warnings.append("\(name): the \(boxRecord.configurationBox ?? "Dolby Vision") box says Dolby Vision "
                    + "\(boxRecord.name) level \(boxRecord.level) but FFmpeg reports \(ffmpegRecord.name) level "
                    + "\(ffmpegRecord.level); using the box")
            } else if ffmpegRecord == nil {
                warnings.append("\(name): FFmpeg does not report the \(boxRecord.configurationBox ?? "Dolby Vision") box")
            }
        }
        video.dynamicRange = DynamicRange.classify(transfer: colour.transfer, dolbyVision: record)
        if entry?.isStereo == true { video.stereoscopic = true }

        let ffmpegMastering = demuxer.stream(Int(stream.pointee.index)).masteringDisplay
        video.masteringDisplay = entry?.masteringDisplay ?? ffmpegMastering
        if let box = entry?.masteringDisplay, let ffmpegMastering, !box.approximatelyEqual(ffmpegMastering) {
            warnings.append("\(name): the mdcv box and FFmpeg disagree on the mastering display; using the box")
        }
        let ffmpegLight = demuxer.stream(Int(stream.pointee.index)).contentLight
        video.contentLight = entry?.contentLight ?? ffmpegLight
        if let box = entry?.contentLight, let ffmpegLight, box != ffmpegLight {
            warnings.append("\(name): the clli box says MaxCLL \(box.maxCLL) but FFmpeg reports \(ffmpegLight.maxCLL); using the box")
        }
        return video
    }

    private func audio(_ parameters: AVCodecParameters) -> AudioTrackInfo {
        var layout = parameters.ch_layout
        var audio = AudioTrackInfo(channels: Int(layout.nb_channels), sampleRate: Int(parameters.sample_rate))
        if layout.nb_channels > 0 {
            var buffer = [CChar](repeating: 0, count: 128)
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                audio.channelLayout = String(nulTerminated: buffer)
            }
        }
        if parameters.format >= 0, let name = av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format)) {
            audio.sampleFormat = String(cString: name)
        }
        return audio
    }

    private func dolbyVision(_ stream: UnsafeMutablePointer<AVStream>) -> DolbyVisionConfiguration? {
        guard let raw = sideData(stream, AV_PKT_DATA_DOVI_CONF, minimumSize: MemoryLayout<AVDOVIDecoderConfigurationRecord>.size)
        else { return nil }
        let record = raw.load(as: AVDOVIDecoderConfigurationRecord.self)
        return DolbyVisionConfiguration(
            versionMajor: Int(record.dv_version_major), versionMinor: Int(record.dv_version_minor),
            profile: Int(record.dv_profile), level: Int(record.dv_level), rpuPresent: record.rpu_present_flag != 0,
            enhancementLayerPresent: record.el_present_flag != 0, baseLayerPresent: record.bl_present_flag != 0,
            baseLayerCompatibilityID: Int(record.dv_bl_signal_compatibility_id))
    }

    /// The stream's side data of `type`, if present and at least `minimumSize` bytes long. The
    /// buffer belongs to the stream: read it before the demuxer goes away.
    private func sideData(
        _ stream: UnsafeMutablePointer<AVStream>, _ type: AVPacketSideDataType, minimumSize: Int
    ) -> UnsafeRawPointer? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, type, &size), size >= minimumSize else { return nil }
        return UnsafeRawPointer(data)
    }

    private func kind(_ type: AVMediaType) -> TrackKind {
        switch type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
    }

    /// FFmpeg's little-endian codec tag as a fourcc, when all four bytes are printable.
    private func fourCC(_ tag: UInt32) -> String? {
        let bytes = [tag & 0xFF, (tag >> 8) & 0xFF, (tag >> 16) & 0xFF, tag >> 24].map { UInt8($0) }
        guard tag != 0, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func metadata(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
