/// What `extract-motion` and `strip-motion` ask for: one motion photo and where the result goes.
public struct MotionPhotoRequest: Sendable, Equatable {
    /// The motion photo.
    public var input: String
    /// Where the result goes.
    public var output: OutputLocation

    /// Creates a request.
    public init(input: String, output: OutputLocation) {
        self.input = input
        self.output = output
    }
}
