internal import CFFmpeg

/// Owns one `AVSubtitle` a decoder filled (its rectangles and their text), freed with
/// `avsubtitle_free` in `deinit`.
package final class DecodedSubtitle {
    private var subtitle: AVSubtitle

    /// Takes over `subtitle`, which a decoder filled.
    fileprivate init(taking subtitle: AVSubtitle) {
        self.subtitle = subtitle
    }

    deinit { avsubtitle_free(&subtitle) }

    /// Calls `body` with the subtitle, for an encoder.
    func withUnsafeSubtitle<Result>(_ body: (UnsafePointer<AVSubtitle>) -> Result) -> Result {
        withUnsafePointer(to: &subtitle) { body($0) }
    }

    /// Decodes `packet` with `context` (a subtitle decoder); nil when it holds no subtitle or
    /// is damaged (the cue is skipped, as FFmpeg's CLI skips it).
    static func decode(_ packet: Packet, with context: UnsafeMutablePointer<AVCodecContext>) -> DecodedSubtitle? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let code = packet.withUnsafePointer { avcodec_decode_subtitle2(context, &subtitle, &got, $0) }
        guard code >= 0, got != 0 else {
            if got != 0 { avsubtitle_free(&subtitle) }
            return nil
        }
        return DecodedSubtitle(taking: subtitle)
    }
}
