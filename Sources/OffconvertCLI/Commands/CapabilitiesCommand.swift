import ConvertCore
import FoundationEssentials

/// `offconvert capabilities`: the encoders and hardware this machine offers offconvert.
package enum CapabilitiesCommand: MediaCommand {
    /// Its engine work.
    package static let work = MediaWork.capabilities

    /// `--json`.
    package static let json = Flag("json", help: "Print one JSON object instead of text.")

    package static let spec = CommandSpec(
        name: "capabilities",
        abstract: "Show which encoders and hardware offconvert can use on this machine.",
        discussion: """
            Photo outputs (HEIC and AVIF need libheif encoder plugins), the video and audio encoders \
            FFmpeg offers, hardware encoders whose device really opens, and whether HDR can be tone \
            mapped. Nothing is encoded and nothing leaves the machine.
            """,
        options: [json.spec],
        examples: ["capabilities", "capabilities --json"])
}
