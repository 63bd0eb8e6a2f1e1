/// Where a job writes its output.
public struct OutputLocation: Sendable, Equatable {
    /// An explicit output path; wins over ``directory``.
    public var path: String?
    /// The folder to write into; `nil` means next to the input.
    public var directory: String?
    /// Replace an existing file of the same name (never the input itself).
    public var overwrite: Bool
    /// ``path`` is a name chosen for the user (by the caller's batch naming), not one the user
    /// typed: if another process takes it before the output is committed, the output is
    /// numbered around it (`clip (2).mp4`) instead of failing with `output.exists`.
    public var mayRenumber = false
    /// What the output passes through as it is moved into place (the CLI's free tier charges
    /// there); nil for library callers, whose conversions are never charged.
    package var placementGate: (any PlacementGate)?

    /// Creates an output location. By default the output goes next to the input, named after it,
    /// and an existing file is never replaced (`clip (2).mp4` is chosen instead).
    public init(path: String? = nil, directory: String? = nil, overwrite: Bool = false, mayRenumber: Bool = false) {
        self.path = path
        self.directory = directory
        self.overwrite = overwrite
        self.mayRenumber = mayRenumber
    }

    /// Two locations are equal when they name the same place the same way; the placement gate,
    /// the caller's own hook, is not compared.
    public static func == (lhs: OutputLocation, rhs: OutputLocation) -> Bool {
        lhs.path == rhs.path && lhs.directory == rhs.directory && lhs.overwrite == rhs.overwrite
            && lhs.mayRenumber == rhs.mayRenumber
    }
}
