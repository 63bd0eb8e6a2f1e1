import ConvertCore
import FoundationEssentials

/// `offconvert info FILE... [--json]`: what each file is, one block (or JSON line) per file.
///
/// The JSON form prints one ``MediaInfo`` object per line (JSON Lines) for every file that could
/// be read, with the schema documented on ``MediaInfo`` and the types it contains. Files that
/// cannot be read get one line each on stderr and make the exit code 1; the others still print.
package enum InfoCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.info

    /// `--json`.
    package static let json = Flag("json", help: "Print one JSON object per file per line (JSON Lines).")

    package static let spec = CommandSpec(
        name: "info",
        abstract: "Show what a photo or video file contains.",
        discussion: """
            For videos: container, duration, size, bit rate and every track (codec, resolution,
            rotation, frame rate, pixel format, colour, dynamic range including Dolby Vision,
            audio channels and language). For photos: dimensions, bit depth, alpha, orientation,
            colour profile, EXIF/XMP, number of images, auxiliary images (depth, gain maps) and
            thumbnails. Every file gets a 'location:' line saying whether it records where it was
            made, and where (EXIF GPS, XMP, thumbnail, container tag, a motion photo's video). A
            motion photo gets a 'motion:' line (the embedded MP4's size, duration and tracks, or
            why the video its metadata promises is not there); a Live Photo's HEIC or MOV gets a
            'live photo:' line naming its partner in the same folder, found by content
            identifier. Files are identified by their content, not their name.
            A file that cannot be read gets one line on stderr; the others still print, and the
            exit code is 1 at the end.
            """,
        arguments: [ArgumentSpec(name: "FILES", help: "The files to describe.", repeating: true)],
        options: [json.spec],
        examples: ["info IMG_0001.MOV", "info --json *.mp4"])

    /// One line of JSON, keys sorted so the output is byte-for-byte reproducible. JSON escapes
    /// control characters itself, so the text is terminal-safe.
}
