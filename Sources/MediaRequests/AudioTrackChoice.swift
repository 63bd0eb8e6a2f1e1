import ConvertCore

/// Which sound tracks a conversion keeps.
public enum AudioTrackChoice: Sendable, Equatable {
    /// The first AAC track, else the first track (what "send to Windows" keeps).
    case automatic
    /// The n-th audio track of the input, counted from 1.
    case track(Int)
    /// Every audio track.
    case all
}
