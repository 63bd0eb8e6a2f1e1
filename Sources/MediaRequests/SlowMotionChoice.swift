import ConvertCore

/// What a video conversion does with a phone's slow motion: a Samsung clip's slowed segments (its
/// SEF trailer) and the capture rate Android records (`com.android.capture.fps`).
public enum SlowMotionChoice: String, Sendable, Equatable, CaseIterable {
    /// Play it as the phone does: the normal parts at normal speed, each slowed segment as many
    /// times slower as the phone plays it, the sound in step (as androidx/media's Transformer
    /// flattens slow motion). Needs a re-encode.
    case flatten
    /// The frames at the file's own timing (the whole clip slowed, as players that do not know
    /// the markers show it). The markers themselves (the SEF trailer, the capture rate tag) are
    /// not carried into the output yet, so this is ``off`` for now.
    case keep
    /// The frames at the file's own timing, without the markers.
    case off
}
