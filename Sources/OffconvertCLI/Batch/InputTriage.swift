import ConvertCore
import FoundationEssentials

/// Sorts a batch's inputs before any work: what the command converts, what it leaves alone and
/// says so, and what it leaves alone silently.
///
/// A phone's export folder holds photos, videos, `.AAE` edit sidecars and stray files, and
/// people run `offconvert heic-to-jpg *` over it. So:
/// - **Converted**: inputs of the command's kind (photos for a photo command, videos for a video
///   command), read by content, not by name; also files that do not exist, cannot be read, or
///   are named like the command's kind but do not read as it (a damaged `.heic`): the
///   conversion reports those as failures (exit 1).
/// - **Skipped, with a line saying why**: media of the other kind (a `.MOV` given to
///   `heic-to-jpg`) and files that are not media at all (a `.txt`). They do not fail the batch.
/// - **Ignored silently** (counted in the summary): sidecars that belong to a photo or video
///   and are never converted themselves (`.AAE`, `.XMP`, `.THM`, `.LRV`, Google Takeout's
///   `.json`, `Thumbs.db`, `desktop.ini`) and hidden files.
package enum InputTriage {
    /// What a batch accepts.
    package enum Accepts: Sendable {
        case photos
        case videos
        /// Videos and sound files (`extract-audio`, `convert --to mp3`).
        case sound
        /// Photos and videos alike (`strip-location`).
        case media
        /// Every input as given: no sorting (a batch of a library user's own kind of work).
        case anything
    }

    /// An input that is not converted.
    package struct SetAside: Sendable, Equatable {
        /// The path as the batch names it.
        package var path: String
        /// Why, in words (`a video, not a photo`); for `--json` and the skipped line.
        package var reason: String
        /// Whether it is only counted, not named (sidecars, hidden files).
        var silent: Bool
    }

    /// What an input is, from its name (sidecars) and its first bytes.
    package enum Content: Equatable, Sendable {
        case photo
        case video
        /// A song, a voice memo, a podcast: sound without a picture track.
        case sound
        case sidecar
        case text
        case empty
        /// Not recognised, or could not be read: left to the conversion to judge.
        case unknown
    }

    /// Extensions of files that accompany a photo or video and are not media themselves.
    static let sidecarExtensions: Set<String> = ["aae", "xmp", "thm", "lrv", "lrf", "json", "xml", "ini", "db", "md5"]

    /// Extensions of photos offconvert reads; a file so named that does not read as a photo is
    /// a damaged photo (a failure), not a file to skip.
    package static let photoExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "webp", "gif", "heic", "heif", "hif", "avif", "heics", "jxl", "bmp", "dib",
        "tif", "tiff", "tga", "icb", "vda", "vst", "pbm", "pgm", "ppm", "pnm", "pam", "ico", "cur", "psd", "psb", "jp2",
        "j2k", "j2c", "jpf", "jpx",
    ]

    /// Photos already in a command's target format, left alone (`heic-to-jpg *` over a phone's
    /// export folder, which holds JPEGs beside its HEICs): re-encoding them would only make
    /// near-duplicates. `hint` says how to ask for them anyway.
    package struct AlreadyInFormat: Sendable {
        /// The target format, as the first bytes name it.
        package var format: ImageFormat
        /// The format's name in the note (`JPEG`).
        package var label: String
        /// The option that includes them (`--include-jpeg`).
        package var hint: String

        package init(format: ImageFormat, label: String, hint: String) {
            self.format = format
            self.label = label
            self.hint = hint
        }
    }

    /// Splits `inputs` into those the batch converts and those it sets aside; photos already in
    /// `alreadyIn`'s format are set aside too.
    package static func sort(
        _ inputs: [String], accepts: Accepts, alreadyIn: AlreadyInFormat? = nil
    ) -> (convert: [String], setAside: [SetAside]) {
        if case .anything = accepts { return (inputs, []) }
        var convert: [String] = []
        var setAside: [SetAside] = []
        for input in inputs {
            let content = content(of: input)
            if let aside = verdict(for: input, content: content, accepts: accepts) {
                setAside.append(aside)
            } else if content == .photo, let alreadyIn, isAlready(input, in: alreadyIn.format) {
                let reason = "already \(alreadyIn.label) (add \(alreadyIn.hint) to re-encode it)"
                setAside.append(SetAside(path: input, reason: reason, silent: false))
            } else {
                convert.append(input)
            }
        }
        return (convert, setAside)
    }

    /// Nil when `input` is converted; otherwise why it is set aside.
    static func verdict(for input: String, content: Content, accepts: Accepts) -> SetAside? {
        switch (content, accepts) {
        case (.sidecar, _):
            return SetAside(path: input, reason: "a sidecar file, not a photo or video", silent: true)
        case (.text, _):
            return SetAside(path: input, reason: "a text file, not a photo or video", silent: false)
        case (.video, .photos):
            return SetAside(path: input, reason: "a video, not a photo", silent: false)
        case (.sound, .photos):
            return SetAside(path: input, reason: "a sound file, not a photo", silent: false)
        case (.sound, .videos):
            return SetAside(
                path: input, reason: "a sound file, not a video ('convert --to mp3' converts it)", silent: false)
        // An animated GIF, APNG or AVIF is a silent clip to a video command ("make this GIF an MP4").
        case (.photo, .videos) where !AnimationSummary.playsAsVideo(path: input):
            return SetAside(path: input, reason: "a photo, not a video", silent: false)
        case (.photo, .sound) where !AnimationSummary.playsAsVideo(path: input):
            return SetAside(path: input, reason: "a photo, not a video or sound", silent: false)
        // A name that is not there (a typo, `-q 5` meant as a quality) fails as missing, never
        // passes as "not a photo" with exit 0.
        case (.unknown, .photos)
        where !photoExtensions.contains(PathText.fileExtension(input).lowercased()) && FileStamp.of(input) != nil:
            return SetAside(path: input, reason: "not a photo", silent: false)
        default:
            return nil
        }
    }

    /// What `path` holds. Sidecars and hidden files are told by name; everything else by its
    /// first bytes.
    package static func content(of path: String) -> Content {
        let name = PathText.lastComponent(path)
        if name.hasPrefix(".") || sidecarExtensions.contains(PathText.fileExtension(name).lowercased()) {
            return .sidecar
        }
        guard let head = RawFile.head(of: path, count: 64) else { return .unknown }
        if head.isEmpty { return .empty }
        switch MediaSniffer.kind(of: head, path: path) {
        case .image, .foreignImage: return .photo
        case .isoMedia: return isSound(Array(head)) ? .sound : .video
        case .matroska: return .video
        case .other: return isSound(Array(head)) ? .sound : isText(Array(head)) ? .text : .unknown
        }
    }

    /// Whether the photo at `path` is in `format`, by its first bytes.
    private static func isAlready(_ path: String, in format: ImageFormat) -> Bool {
        guard let head = RawFile.head(of: path, count: 64) else { return false }
        return MediaSniffer.kind(of: head) == .image(format)
    }

    /// Whether `head` starts a sound file: ID3-tagged or bare MPEG audio (MP3), FLAC, WAVE, Ogg
    /// Opus or Vorbis, or an MPEG-4 file branded as audio (`M4A `, `M4B `, `M4P `: iTunes, voice
    /// memos, audiobooks).
    static func isSound(_ head: [UInt8]) -> Bool {
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<(offset + bytes.count)]) == bytes
        }
        if starts("ID3") || starts("fLaC") || (starts("RIFF") && starts("WAVE", at: 8)) { return true }
        if starts("ftyp", at: 4) { return ["M4A ", "M4B ", "M4P "].contains { starts($0, at: 8) } }
        if starts("OggS") {
            return head.windows(of: Array("OpusHead".utf8)) || head.windows(of: [1] + Array("vorbis".utf8))
        }
        // An MPEG audio frame: 11 sync bits, then a layer that is not "reserved".
        return head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] & 0x06 != 0
    }

    /// Whether `head` reads as text: valid UTF-8 without control characters other than tab,
    /// line feed and carriage return (no media format starts like that; a raw video stream or
    /// MPEG-TS starts with 0x00 or 0x47 followed by binary).
    private static func isText(_ head: [UInt8]) -> Bool {
        guard head.allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }), !head.contains(0x7F) else {
            return false
        }
        // A multi-byte character cut off by the 64-byte read is still text.
        return (0...min(3, head.count - 1)).contains { String(validating: head.dropLast($0), as: UTF8.self) != nil }
    }
}
