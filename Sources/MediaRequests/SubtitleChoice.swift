import ConvertCore

/// Whether a video conversion keeps the input's subtitle tracks.
public enum SubtitleChoice: String, Sendable, Equatable, CaseIterable {
    /// Every subtitle track the output container can carry: copied as it is (Matroska: all of
    /// them; MP4 and MOV: `mov_text`; WebM: WebVTT), or for MP4 and MOV a text track (SRT, ASS,
    /// WebVTT) written again as `mov_text`; the others (picture subtitles in MP4) are named in a note.
    case keep
    /// None.
    case drop
}
