internal import FFmpegLayer

extension VideoPlanner {
    /// The box a send-to-windows picture must fit, long side by short side: UHD. Beyond H.264
    /// level 5.2 (4096×2304) Windows' built-in decoder and most GPUs do not play a stream, and
    /// 3840×2160 is the size every UHD screen and decoder is made for.
    static let windowsBox = (long: 3840, short: 2160)

    /// The displayed height a send-to-windows copy of `video` is scaled to so it fits
    /// ``windowsBox`` (2160 for a landscape 8K clip, 3840 for a portrait one), and the note that
    /// says so; nil when it fits already.
    static func windowsFit(_ video: StreamSnapshot) -> (height: Int, note: String)? {
        let stored = (width: Int(video.width), height: Int(video.height))
        let shown = video.isSideways ? (width: stored.height, height: stored.width) : stored
        let long = max(shown.width, shown.height)
        let short = min(shown.width, shown.height)
        guard long > windowsBox.long || short > windowsBox.short, shown.width > 0, shown.height > 0 else { return nil }
        let scale = min(Double(windowsBox.long) / Double(long), Double(windowsBox.short) / Double(short))
        let height = Int(Double(shown.height) * scale) / 2 * 2
        // The scaler's other side, as "-2" rounds it: the nearest even size keeping the aspect.
        let width = Int((Double(shown.width) * Double(height) / Double(shown.height) / 2).rounded()) * 2
        let note =
            "scaled to \(width)x\(height) to play on any Windows PC (\(shown.width)x\(shown.height) H.264 is beyond level 5.2, "
            + "which Windows' decoder and most graphics cards stop at)"
        return (height, note)
    }
}
