import ConvertCore
import FoundationEssentials

/// `offconvert strip-location FILES... [--in-place]`: removes where a photo or video was made,
/// without re-encoding anything.
package enum StripLocationCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.stripLocation

    /// Added to each output's name: `IMG_0001.HEIC` becomes `IMG_0001 (no location).HEIC`.
    package static let outputSuffix = " (no location)"

    /// `--in-place`.
    package static let inPlace = Flag("in-place", help: "Replace each file instead of writing a copy.")

    package static let spec = CommandSpec(
        name: "strip-location",
        abstract: "Remove the location from photos and videos without re-encoding them.",
        discussion: """
            Removes EXIF GPS, XMP location fields (cell-tower codes and Darwin Core terms too), \
            MP4/MOV location tags (©xyz, com.apple.quicktime.location.*), the GPS of GoPro \
            telemetry and the GPS record of FLIR thermal photos from JPEG, PNG, WebP, HEIC/AVIF, \
            MP4 and MOV files. \
            Only metadata bytes change: the compressed picture and every audio/video packet stay \
            byte-identical, and so does the file's size. Each file becomes 'NAME (no location).EXT' \
            next to it (or in --output-dir); with --in-place the file itself is replaced through a \
            temporary file and a rename. The result is read back before it is kept: if a location \
            would remain, nothing is written and the file is reported as failed. With --in-place a \
            symbolic link stays a link: the file it points to is edited.
            """,
        arguments: [
            ArgumentSpec(
                name: "FILES", help: "Photos and videos to clean; '-' reads paths from stdin.", repeating: true,
                required: false)
        ],
        options: [inPlace.spec] + BatchOptions.specs,
        examples: [
            "strip-location IMG_0001.HEIC", "strip-location --in-place *.jpg", "strip-location -o clean/ clip.mov",
        ])
}
