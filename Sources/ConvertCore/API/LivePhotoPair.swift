/// An iPhone Live Photo: the still (HEIC or JPEG) and the MOV that share a content identifier.
public struct LivePhotoPair: Sendable, Hashable {
    /// The still.
    public var photo: String
    /// The motion, a QuickTime movie.
    public var movie: String
    /// The identifier both carry: the photo's Apple MakerNote tag 0x0011 and the movie's
    /// `com.apple.quicktime.content.identifier`.
    public var contentIdentifier: String
}
