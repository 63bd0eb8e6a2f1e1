import ConvertCore
internal import FFmpegLayer
import Foundation

/// The video engine's entry points: each returns a running ``ConversionJob``.
///
/// Every job first opens the input and plans (which streams are copied, which re-encoded, whether
/// HDR is tone mapped) and fails early for known reasons, before any file is created. The output
/// is written to a temporary file next to its destination and moved into place only when
/// complete; cancelling the job stops decoding and encoding within a packet and removes it.
public enum VideoConverter {
    /// Converts a video: a passthrough remux when every kept stream already fits the target,
    /// a re-encode otherwise. Keeps the video and the first AAC (else first) audio track only.
    /// The job runs on the threads of `limits`.
    public static func convert(_ request: VideoRequest, limits: ConversionLimits = .shared) -> ConversionJob {
        run(
            input: request.input, output: request.output, maxPixels: request.maxPixels,
            rawFrameRate: request.rawFrameRate, limits: limits
        ) { media throws(ConvertError) in
            try VideoPlanner.plan(request, media: media)
        }
    }

    /// Makes an animated GIF from part of a video, on the threads of `limits`.
    public static func gif(_ request: GIFRequest, limits: ConversionLimits = .shared) -> ConversionJob {
        run(input: request.input, output: request.output, maxPixels: request.maxPixels, limits: limits) {
            media throws(ConvertError) in
            try VideoPlanner.gif(request, media: media)
        }
    }

    /// Makes an animated WebP of an animated AVIF's frames (see ``AnimatedWebPRequest``), on the
    /// threads of `limits`.
    public static func animatedWebP(_ request: AnimatedWebPRequest, limits: ConversionLimits = .shared)
        -> ConversionJob
    {
        run(input: request.input, output: request.output, maxPixels: request.maxPixels, limits: limits) {
            media throws(ConvertError) in
            try VideoPlanner.animatedWebP(request, media: media)
        }
    }

    /// Saves a video's sound (its first AAC track, else its first audio track) as an audio file;
    /// AAC goes into `.m4a` without re-encoding. The job runs on the threads of `limits`.
    public static func extractAudio(_ request: AudioExtractionRequest, limits: ConversionLimits = .shared)
        -> ConversionJob
    {
        run(input: request.input, output: request.output, limits: limits) { media throws(ConvertError) in
            try VideoPlanner.extractAudio(request, media: media)
        }
    }

    /// Lossless codecs: kept lossless (ALAC copied into .m4a, the others written as FLAC), and
    /// never given a lossy bitrate cap.
    static let losslessCodecs: Set<String> = [
        "truehd", "mlp", "alac", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be", "pcm_s16be", "pcm_f32le",
        "pcm_f32be",
        "pcm_bluray", "pcm_dvd", "wavpack", "tta", "ape",
    ]

    /// The audio format that holds `input`'s sound as it is (the track ``extractAudio(_:limits:)``
    /// takes: `track`, by default the first AAC, else the first audio track): `.m4a` for AAC and
    /// Apple Lossless, `.mp3`, `.opus`, `.flac`, `.wav` for 16-bit PCM, `.flac` for other lossless
    /// sound (TrueHD, deeper PCM), which stays lossless; nil when the sound needs encoding or
    /// cannot be read.
    /// Reads the file's headers only, on the calling thread.
    public static func soundFormat(of input: String, track: AudioTrackChoice = .automatic) -> AudioFormat? {
        FFmpegLogging.configure()
        guard let demuxer = try? Demuxer(path: input) else { return nil }
        let audio = MediaSnapshot(demuxer).streams.filter { $0.kind == .audio }
        let picked: StreamSnapshot?
        switch track {
        case .track(let number): picked = number >= 1 && number <= audio.count ? audio[number - 1] : nil
        case .all where audio.count > 1: return .m4a
        case .automatic, .all: picked = audio.first(where: \.isAAC) ?? audio.first
        }
        guard let chosen = picked else { return nil }
        switch chosen.codec {
        case .aac, .alac: return .m4a
        case .mp3: return .mp3
        case .opus: return .opus
        case .flac: return .flac
        case .pcmS16LE: return .wav
        // Lossless sound stays lossless: TrueHD, MLP and PCM that WAV (16-bit) would cut become FLAC.
        default: return losslessCodecs.contains(chosen.codecName) ? .flac : nil
        }
    }

    private static func run(
        input: String, output: OutputLocation, maxPixels: Int = PixelLimit.defaultMaxPixels,
        rawFrameRate: Double? = nil, limits: ConversionLimits,
        plan makePlan: @escaping @Sendable (MediaSnapshot) throws(ConvertError) -> VideoPlan
    ) -> ConversionJob {
        ConversionJob.start(path: input, admission: limits.admission) { reporter in
            try await runBlocking(on: limits.codec) { flag in
                try VideoJob.run(
                    input: input, output: output, maxPixels: maxPixels, rawFrameRate: rawFrameRate, plan: makePlan,
                    cancellation: flag, reporter: reporter)
            }
        }
    }
}
