/// A fact about a finished job worth telling the user: what was left out, kept, removed or
/// repaired ("3 pages; the first kept", "location removed").
///
/// A note has a stable ``code`` an app can switch on, the values it needs to word the note
/// itself (``detail``), and ``message``, a default English sentence. The message names no
/// option or command of any front end: a host app adds its own way to get what was left out
/// (the `offconvert` command line adds its options, e.g. "--all-images writes each").
///
/// ```swift
/// for note in result.notes {
///     if case .pagesLeftOut(let pages) = note.detail { showPagePicker(pages) } else { show(note.message) }
/// }
/// ```
public struct JobNote: Sendable, Equatable, CustomStringConvertible {
    /// What the note is about; notes without a more specific kind are ``Code/fact``.
    public let code: Code
    /// The default English sentence, without option or command names.
    public let message: String
    /// The values the note is about, for an app that words it itself.
    public let detail: Detail

    /// A note of `code` with its English `message` and the values it is about.
    package init(_ code: Code, _ message: String, detail: Detail = .none) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    /// A note of kind ``Code/fact``: its message is all there is to it.
    package init(fact message: String) {
        self.init(.fact, message)
    }

    /// ``Code/fact`` notes saying `messages`, in order.
    package static func facts(_ messages: [String]) -> [JobNote] {
        messages.map(JobNote.init(fact:))
    }

    /// ``message``.
    public var description: String { message }
}

extension JobNote {
    /// The stable key of one kind of note. An open set: new codes may be added, so a `switch`
    /// over codes needs a default (show ``JobNote/message``).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The key, e.g. `"image.pages-left-out"`.
        public let rawValue: String

        /// A code with its key; every code is a static member below.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The key.
        public var description: String { rawValue }

        /// `fact`: any note without a kind of its own (what was copied, re-encoded, removed or
        /// repaired); its ``JobNote/message`` is the whole of it and its detail is ``Detail/none``.
        public static let fact = Code("fact")

        /// `image.pages-left-out`: a multi-page TIFF was converted to one picture, its first page,
        /// because all images were not asked for. Detail: ``Detail/pagesLeftOut(pages:)``.
        public static let pagesLeftOut = Code("image.pages-left-out")
        /// `image.pictures-left-out`: a multi-picture JPEG (MPO: a stereo pair, a multi-angle set)
        /// was converted to its first picture, because all images were not asked for. Detail:
        /// ``Detail/picturesLeftOut(pictures:stereo:)``.
        public static let picturesLeftOut = Code("image.pictures-left-out")
        /// `image.animation-still`: a still output was made from one frame of an animated GIF,
        /// PNG (APNG), WebP or AVIF. Detail: ``Detail/animationStill(_:)``.
        public static let animationStill = Code("image.animation-still")

        /// `hdr.gain-map-removed`: a HEIC output of a HEIC with an HDR gain map was written
        /// without the map because SDR was asked for (``PhotoRequest/hdr`` is `.sdr`).
        public static let gainMapRemoved = Code("hdr.gain-map-removed")
        /// `hdr.gain-map-metadata-removed`: a HEIC output of a HEIC with an HDR gain map was
        /// written without the map because all metadata is removed (``PhotoRequest/metadata`` is
        /// `.strip`), and with it the metadata that describes the map.
        public static let gainMapMetadataRemoved = Code("hdr.gain-map-metadata-removed")

        /// `video.subtitles-dropped`: the input's subtitle tracks were left out because the
        /// request said to drop them. Detail: ``Detail/subtitlesDropped(tracks:)``.
        public static let subtitlesDropped = Code("video.subtitles-dropped")
        /// `video.audio-track-left-out`: one of the input's audio tracks is not in the output.
        /// Detail: ``Detail/audioTrackLeftOut(_:)``.
        public static let audioTrackLeftOut = Code("video.audio-track-left-out")
        /// `video.raw-stream-timing`: the input is a raw video stream without timestamps, timed
        /// by a frame rate. Detail: ``Detail/rawStreamTiming(framesPerSecond:source:)``.
        public static let rawStreamTiming = Code("video.raw-stream-timing")
        /// `gif.large`: a GIF made from a long stretch of video (no duration asked for) is
        /// likely to be large. Detail: ``Detail/largeGIF(seconds:)``.
        public static let largeGIF = Code("gif.large")
    }

    /// The values a note is about. An open set: new cases may be added, so a `switch` needs a
    /// default.
    public enum Detail: Sendable, Equatable {
        /// No values beyond the message (``Code/fact`` and notes that need none).
        case none
        /// `pages`: how many pages the TIFF has (the first was kept).
        case pagesLeftOut(pages: Int)
        /// `pictures`: how many pictures the MPO has (the first was kept); `stereo`: whether it
        /// is a stereo pair (its first picture is the left eye's).
        case picturesLeftOut(pictures: Int, stereo: Bool)
        /// Which frame of which animation a still output was made from.
        case animationStill(AnimationStill)
        /// `tracks`: how many subtitle tracks were dropped.
        case subtitlesDropped(tracks: Int)
        /// Which audio track was left out and whether the request could have kept it.
        case audioTrackLeftOut(AudioTrackLeftOut)
        /// The frame rate a raw stream was timed at, and where that rate came from.
        case rawStreamTiming(framesPerSecond: Double, source: FrameRateSource)
        /// `seconds`: how long the GIF plays.
        case largeGIF(seconds: Double)
    }

    /// The animation a still output was made from (``Detail/animationStill(_:)``).
    public struct AnimationStill: Sendable, Equatable {
        /// The input's format: `.gif`, `.png` (APNG), `.webp`, or `.avif` (and `.heic`) for an
        /// image sequence whose still image was kept.
        public var format: PhotoFormat
        /// How many frames the animation has.
        public var frames: Int
        /// How long one pass through every frame takes, in milliseconds.
        public var milliseconds: Int
        /// The frame kept, 1-based.
        public var keptFrame: Int
        /// Whether that frame was asked for (``DecodeOptions``' frame); otherwise it is the first.
        public var frameWasChosen: Bool

        /// Creates the detail of a still made from an animation.
        public init(format: PhotoFormat, frames: Int, milliseconds: Int, keptFrame: Int, frameWasChosen: Bool) {
            self.format = format
            self.frames = frames
            self.milliseconds = milliseconds
            self.keptFrame = keptFrame
            self.frameWasChosen = frameWasChosen
        }
    }

    /// The audio track a video output left out (``Detail/audioTrackLeftOut(_:)``).
    public struct AudioTrackLeftOut: Sendable, Equatable {
        /// The track's position among the input's audio tracks, 1-based.
        public var position: Int
        /// What it is, as far as known: language, codec, channels ("eng AAC stereo").
        public var description: String
        /// Whether a request of this kind can choose this track instead (a conversion can; a
        /// compression or a GIF cannot).
        public var canChoose: Bool
        /// Whether a request of this kind can keep every audio track.
        public var canKeepAll: Bool

        /// Creates the detail of an audio track left out.
        public init(position: Int, description: String, canChoose: Bool, canKeepAll: Bool) {
            self.position = position
            self.description = description
            self.canChoose = canChoose
            self.canKeepAll = canKeepAll
        }
    }

    /// Where the frame rate of a raw video stream came from (``Detail/rawStreamTiming(framesPerSecond:source:)``).
    public enum FrameRateSource: Sendable, Equatable {
        /// The request gave it.
        case request
        /// The stream states it.
        case stream
        /// Neither did: it is a default rate (30 fps).
        case assumed
    }
}

/// Internal note lists take plain facts as strings: most notes are ``JobNote/Code/fact``, and
/// this keeps their many call sites as short as they were.
extension Array where Element == JobNote {
    /// Appends a ``JobNote/Code/fact`` note saying `message`.
    package mutating func append(_ message: String) {
        append(JobNote(fact: message))
    }

    /// Whether a note says exactly `message`.
    package func contains(_ message: String) -> Bool {
        contains { $0.message == message }
    }

    /// Appends ``JobNote/Code/fact`` notes saying `messages`.
    package static func += (notes: inout [JobNote], messages: [String]) {
        notes += JobNote.facts(messages)
    }

    /// `notes` followed by ``JobNote/Code/fact`` notes saying `messages`.
    package static func + (notes: [JobNote], messages: [String]) -> [JobNote] {
        notes + JobNote.facts(messages)
    }
}
