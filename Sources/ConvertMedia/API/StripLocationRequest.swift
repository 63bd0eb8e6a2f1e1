import ConvertCore

/// What `strip-location` asks for: one file, and where its location-free copy goes.
public struct StripLocationRequest: Sendable {
    /// The file to clean.
    public var input: String
    /// Where the result goes. Equal to ``input`` for an in-place edit (written through a
    /// temporary file renamed over the original once complete).
    public var destination: String
    /// Whether an existing file at ``destination`` may be replaced (always so in place).
    public var overwrite: Bool
    /// What the output passes through as it is moved into place (the CLI's free tier charges
    /// there); nil for library callers, whose conversions are never charged.
    package var placementGate: (any PlacementGate)?

    /// Creates a request; `destination == input` edits the file in place.
    public init(input: String, destination: String, overwrite: Bool = false) {
        self.input = input
        self.destination = destination
        self.overwrite = overwrite
    }

    /// Whether the input itself is replaced.
    public var inPlace: Bool { input == destination }
}
