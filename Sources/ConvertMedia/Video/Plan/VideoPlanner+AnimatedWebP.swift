import ConvertCore

extension VideoPlanner {
    /// Plans an animated WebP from an animated AVIF's image sequence: every frame at its own
    /// time, the picture as stored (turned as the file says), HDR tone mapped to SDR, through
    /// FFmpeg's libwebp animation encoder (libwebp's `WebPAnimEncoder`, as the photo engine's
    /// GIF-to-WebP uses), looping forever.
    static func animatedWebP(_ request: AnimatedWebPRequest, media: MediaSnapshot) throws(ConvertError) -> VideoPlan {
        let path = request.input
        let video = try decodablePicture(media, maxPixels: request.maxPixels, path: path)
        let range = try ToneMapDecision.decide(for: video, targetCarriesHDR: false, path: path)
        var filters: [String] = []
        if let rotate = rotationFilter(video.rotation) { filters.append(rotate) }
        if case .toneMap(let from) = range { filters.append(ToneMapDecision.filter(for: from)) }
        filters.append("format=yuv420p")
        let options: [OutputFormat.Option] =
            request.lossless
            ? [.init(key: "lossless", value: "1")]
            : [.init(key: "quality", value: "\(request.quality)"), .init(key: "lossless", value: "0")]
        let encoding = VideoEncoding(
            encoder: "libwebp_anim", options: options, filter: filters.joined(separator: ","), dynamicRange: range,
            keepsDisplayMatrix: false)
        var notes = [JobNote]()
        let sequence = (try? FileByteSource(path: path)).flatMap { ImageSequenceTrack.read($0) }
        if let sequence {
            notes.append("animation kept (\(AnimationSummary(sequence).description))")
            if sequence.hasAlpha {
                notes.append("its transparency is not kept: FFmpeg 5.1 does not read an AVIF animation's alpha track")
            }
        }
        if range != .none { notes.append("HDR tone mapped to SDR BT.709") }
        var plan = VideoPlan(
            format: .animatedWebP, lanes: [.video(video, encoding)], keepLocation: false, notes: notes)
        plan.maxPixels = request.maxPixels
        try plan.checkPixels(path: path)
        return plan
    }
}
