/// A container FFmpeg writes, by the name of its muxer (`mp4`, `matroska`, `ipod` for M4A):
/// an open set of names FFmpeg knows, never a file extension.
struct ContainerFormat: Hashable, Sendable, CustomStringConvertible {
    /// FFmpeg's muxer name, as `avformat_alloc_output_context2` takes it.
    let name: String

    /// The container FFmpeg's muxer `name` writes.
    init(_ name: String) { self.name = name }

    static let mp4 = ContainerFormat("mp4")
    static let mov = ContainerFormat("mov")
    /// M4A: MPEG-4 audio with iTunes' brand.
    static let ipod = ContainerFormat("ipod")
    static let matroska = ContainerFormat("matroska")
    static let webm = ContainerFormat("webm")
    static let mp3 = ContainerFormat("mp3")
    static let opus = ContainerFormat("opus")
    static let wav = ContainerFormat("wav")
    static let flac = ContainerFormat("flac")
    static let gif = ContainerFormat("gif")

    /// Whether the container is MPEG-4/QuickTime (codec tags such as `hvc1` and edit lists
    /// matter there).
    var isISOBMFF: Bool { self == .mp4 || self == .mov || self == .ipod }

    var description: String { name }
}
