import ConvertCore

/// A video container offconvert writes.
public enum VideoContainer: String, Sendable, CaseIterable {
    /// MPEG-4 (`.mp4`), with the index at the front (faststart) so it plays while downloading.
    case mp4
    /// QuickTime (`.mov`).
    case mov
    /// Matroska (`.mkv`).
    case mkv
    /// WebM (`.webm`): VP9 or AV1 with Opus only.
    case webm

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }
}
