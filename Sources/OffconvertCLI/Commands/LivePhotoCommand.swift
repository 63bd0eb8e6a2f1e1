import ConvertCore

/// `offconvert live-photo FILES... [--to mp4|gif|jpg]`: a Live Photo as what people share.
package enum LivePhotoCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.livePhoto

    /// What `--to` makes of a Live Photo.
    package enum Target: String, CaseIterable, Sendable {
        /// H.264/AAC, as send-to-windows makes it.
        case mp4
        /// A looping GIF, as gif makes it.
        case gif
        /// The still, as heic-to-jpg makes it.
        case jpg
    }

    /// `--to`.
    package static let target = Option<Target>.choice("to", help: "What to make of each Live Photo.", default: .mp4)

    package static let spec = CommandSpec(
        name: "live-photo",
        abstract: "Turn iPhone Live Photos into an MP4, a looping GIF or a JPEG still.",
        discussion: """
            Give the photos (HEIC or JPEG), their MOVs, or the folder holding both: each photo is \
            paired with the MOV that carries its content identifier (so renamed exports still \
            pair), looked for among the files given and then beside the photo. Each Live Photo \
            becomes NAME.mp4 (H.264/AAC, as send-to-windows makes it), NAME.gif (looping, as gif \
            makes it) or NAME.jpg (the still, as heic-to-jpg makes it), named after the photo. \
            Location is removed as by every sharing command. A file that is not part of a Live \
            Photo is reported and makes the exit code 1.
            """,
        arguments: [BatchOptions.files("Live Photos: the photos, their MOVs, or folders.")],
        options: [target.spec] + BatchOptions.specs,
        examples: ["live-photo IMG_0001.HEIC", "live-photo --to gif IMG_0001.HEIC IMG_0001.MOV"])
}
