/// What `info` says about a file's Live Photo side.
///
/// JSON object (`"livePhoto"` of ``MediaInfo``): `{"contentIdentifier": "71DCA213-…",
/// "pairedWith": "IMG_3853.MOV"}`; `pairedWith` is absent when no partner was found beside it.
public struct LivePhotoInfo: Sendable, Codable, Hashable {
    /// The content identifier the file carries.
    public var contentIdentifier: String
    /// The partner found in the same folder (the MOV of a photo, the photo of a MOV).
    public var pairedWith: String?
}
