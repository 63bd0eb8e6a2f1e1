/// A container FFmpeg writes, by the name of its muxer (`mp4`, `matroska`, `ipod` for M4A):
/// an open set of names FFmpeg knows, never a file extension.
package struct ContainerFormat: Hashable, Sendable, CustomStringConvertible {
    /// FFmpeg's muxer name, as `avformat_alloc_output_context2` takes it.
    package let name: String

    /// The container FFmpeg's muxer `name` writes.
    init(_ name: String) { self.name = name }

    package static let mp4 = ContainerFormat("mp4")
    package static let mov = ContainerFormat("mov")
    /// M4A: MPEG-4 audio with iTunes' brand.
    package static let ipod = ContainerFormat("ipod")
    package static let matroska = ContainerFormat("matroska")
    package static let webm = ContainerFormat("webm")
    package static let mp3 = ContainerFormat("mp3")
    package static let opus = ContainerFormat("opus")
    package static let wav = ContainerFormat("wav")
    package static let flac = ContainerFormat("flac")
    package static let gif = ContainerFormat("gif")
    package static let webp = ContainerFormat("webp")

    /// Whether the container is MPEG-4/QuickTime (codec tags such as `hvc1` and edit lists
    /// matter there).
    package var isISOBMFF: Bool { self == .mp4 || self == .mov || self == .ipod }

    /// Where a container keeps chapters.
    package enum ChapterPlace: Sendable {
        /// FFmpeg's chapters, written by the muxer (QuickTime chapter track and `chpl`, Matroska
        /// `Chapters`, ID3 `CHAP`).
        case chapters
        /// `CHAPTERxxx` Vorbis comments, written as tags (FLAC, Ogg): FFmpeg 5.1's FLAC muxer
        /// writes no chapters, and its Ogg muxer rounds each start to the nearest second before
        /// adding the milliseconds (0.6 s becomes 1.600).
        case vorbisComments
        /// No place (WAV, GIF, WebP).
        case none
    }

    /// Where this container keeps chapters.
    package var chapterPlace: ChapterPlace {
        switch self {
        case .flac, .opus: .vorbisComments
        case .wav, .gif, .webp: .none
        default: .chapters
        }
    }

    package var description: String { name }
}
