/// The image sequence of an animated AVIF (brand `avis`) or HEIF (`msf1`): besides its still
/// image (the `meta` box's primary item, which libheif 1.15 reads), such a file carries its
/// frames as an ISO-BMFF movie track (`moov`/`trak` with a `pict` handler), which libheif 1.15
/// does not read. Only the track's timing is read here: how many frames and how long they play.
package struct ImageSequenceTrack: Equatable, Sendable {
    /// The number of samples (frames) of the track.
    package var frames: Int
    /// One pass through every frame, in milliseconds.
    package var milliseconds: Int
    /// Whether the file has an alpha track beside it (handler `auxv`): the sequence's
    /// transparency, which a reader of the picture track alone leaves out.
    package var hasAlpha = false

    /// The most frames counted: a hostile `stts` may claim billions, and no real sequence has
    /// this many.
    private static let maximumFrames = 1 << 24

    /// The first picture track of the file `source` holds; nil when it has no `moov`, no track
    /// with a `pict` handler, or the track's timing tables cannot be read.
    package static func read(_ source: any ByteSource) -> ImageSequenceTrack? {
        let reader = BoxReader(source: source)
        guard let top = try? reader.children(of: nil, depth: 0), let movie = top.first(where: { $0.type == "moov" }),
            let tracks = try? reader.children(of: movie, depth: 1)
        else { return nil }
        let trakBoxes = tracks.filter { $0.type == "trak" }
        guard var sequence = trakBoxes.lazy.compactMap({ try? timing(of: $0, reader: reader) }).first else {
            return nil
        }
        sequence.hasAlpha = trakBoxes.contains { (try? handler(of: $0, reader: reader)) == "auxv" }
        return sequence
    }

    /// The handler type of `track`'s media (`pict`, `auxv`, `vide`), nil without one.
    private static func handler(of track: BoxHeader, reader: BoxReader) throws(BoxError) -> FourCC? {
        guard let media = try reader.child("mdia", of: track, depth: 2),
            let handler = try reader.child("hdlr", of: media, depth: 3)
        else { return nil }
        var cursor = ByteCursor(try reader.payloadPrefix(of: handler, count: 12), type: "hdlr")
        try cursor.skip(8)
        return FourCC(rawValue: try cursor.u32())
    }

    /// The frames and length of `track` when it is a picture track; nil for another track
    /// (an alpha track's handler is `auxv`).
    private static func timing(of track: BoxHeader, reader: BoxReader) throws(BoxError) -> ImageSequenceTrack? {
        // A picture track only: a motion photo's video track (`vide`) is no animation of the still.
        guard try handler(of: track, reader: reader) == "pict",
            let media = try reader.child("mdia", of: track, depth: 2),
            let header = try reader.child("mdhd", of: media, depth: 3),
            let information = try reader.child("minf", of: media, depth: 3),
            let table = try reader.child("stbl", of: information, depth: 4),
            let times = try reader.child("stts", of: table, depth: 5)
        else { return nil }
        let timescale = try self.timescale(try reader.payloadPrefix(of: header, count: 24))
        guard timescale > 0 else { return nil }
        var entries = ByteCursor(try reader.payload(of: times), type: "stts")
        try entries.skip(4)
        let count = Int(try entries.u32())
        var frames = 0
        var ticks: UInt64 = 0
        for _ in 0..<count {
            let samples = Int(try entries.u32())
            let delta = UInt64(try entries.u32())
            frames += samples
            guard frames <= maximumFrames else { return nil }
            ticks += UInt64(samples) * delta
        }
        // Milliseconds must not overflow (a hostile delta of 2^32 ticks for every frame).
        guard frames > 0, ticks <= UInt64.max / 1000 else { return nil }
        return ImageSequenceTrack(frames: frames, milliseconds: Int(ticks * 1000 / UInt64(timescale)))
    }

    /// The time scale of an `mdhd` payload (version 0: 32-bit times; version 1: 64-bit).
    private static func timescale(_ payload: [UInt8]) throws(BoxError) -> UInt32 {
        var cursor = ByteCursor(payload, type: "mdhd")
        let version = try cursor.u8()
        try cursor.skip(3 + (version == 1 ? 16 : 8))
        return try cursor.u32()
    }
}
