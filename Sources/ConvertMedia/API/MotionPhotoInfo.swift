import ConvertCore
import Foundation

/// The video inside a motion photo, as `info` shows it.
///
/// JSON object (`"motionPhoto"` of ``MediaInfo``):
/// ```
/// {
///   "layout": "google",          // google, google-microvideo, samsung, heif-mpvd, samsung-heif
///   "declaredBytes": 1317283,    // what the metadata says; absent when it says nothing
///   "videoOffset": 2728123,      // where the MP4 starts; absent when it is not there
///   "videoBytes": 1317283,       // absent when it is not there
///   "video": { ... },            // ContainerInfo of the MP4 (codec, duration, size, location)
///   "problem": "..."             // why the declared video is missing or unreadable
/// }
/// ```
public struct MotionPhotoInfo: Sendable, Codable, Hashable {
    /// How the video is attached (`google`, `google-microvideo`, `samsung`, `heif-mpvd`, `samsung-heif`).
    public var layout: String
    /// The video's length as the metadata declares it.
    public var declaredBytes: Int?
    /// Where the MP4 starts in the file.
    public var videoOffset: Int?
    /// The MP4's length in bytes.
    public var videoBytes: Int?
    /// The MP4's container and tracks, when it could be read.
    public var video: ContainerInfo?
    /// Why the declared video is missing or cannot be read.
    public var problem: String?

    /// Whether a playable video is there.
    public var hasVideo: Bool { video != nil }

    /// Describes the motion photo in `file` (the bytes of the photo at `path`); nil for an
    /// ordinary photo. The MP4 is probed from a temporary copy, removed before returning.
    static func probe(file: [UInt8], cancellation: CancellationFlag) throws(ConvertError) -> MotionPhotoInfo? {
        guard let photo = MotionPhoto.find(in: file) else { return nil }
        var info = MotionPhotoInfo(
            layout: photo.layout.rawValue, declaredBytes: photo.declaredBytes,
            videoOffset: photo.video?.lowerBound, videoBytes: photo.video?.count, problem: photo.problem)
        guard let range = photo.video else { return info }
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent(".offconvert-motion-\(getpid())-\(UUID().uuidString.prefix(8)).mp4").path
        defer { unlink(temporary) }
        guard FileManager.default.createFile(atPath: temporary, contents: Data(file[range])) else {
            info.problem = "the embedded video could not be read (no room for a temporary copy)"
            return info
        }
        do {
            info.video = try MediaProbe.probeBlocking(path: temporary, cancellation: cancellation).container
        } catch {
            if error.category == .cancelled { throw error }
            info.problem =
                "the embedded video cannot be read: "
                + error.message.replacingOccurrences(of: temporary, with: "the MP4")
        }
        return info
    }
}
