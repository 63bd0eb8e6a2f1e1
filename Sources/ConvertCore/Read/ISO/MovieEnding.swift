/// How an MP4/MOV file's top-level boxes end: whether the file is fragmented and whether its last
/// box runs past the end of the file.
///
/// A fragmented MP4 (`moov` with `mvex`, then `moof`/`mdat` pairs, as screen recorders, browsers'
/// MediaRecorder and DASH write it) says nothing true about its length in its header (0, or
/// 0xFFFFFFFF ticks: "143166 s" at 30000 per second): the fragments are the clip. For any MP4/MOV,
/// a last box that runs past the end of the file is the sure sign of a recording or copy cut short
/// (`head -c` of a phone clip keeps its `moov` and loses the end of its `mdat`).
package struct MovieEnding: Equatable {
    /// Whether the movie is fragmented (its `moov` holds an `mvex`).
    package var isFragmented: Bool
    /// Whether the last top-level box runs past the end of the file. A Samsung `sefd` trailer
    /// cut short does not count: it holds no media, only markers (slow motion, ...), whose loss
    /// the slow-motion reader reports.
    package var isCutShort: Bool

    /// How the MP4/MOV at `path` ends; nil for a file without a readable `moov`.
    package init?(path: String) {
        guard let source = try? FileByteSource(path: path) else { return nil }
        let reader = BoxReader(source: source)
        guard let top = try? reader.children(of: nil, depth: 0), let movie = top.first(where: { $0.type == "moov" })
        else { return nil }
        isFragmented = (try? reader.child("mvex", of: movie, depth: 1)) != nil
        isCutShort = top.last.map { $0.isTruncated && $0.type != "sefd" } ?? false
    }

    /// Whether the last top-level box of the ISO-BMFF file at `path` (MP4, MOV, HEIF, AVIF) runs
    /// past the end of the file: a copy cut short, whatever else is wrong with it.
    package static func isCutShort(path: String) -> Bool {
        guard let source = try? FileByteSource(path: path) else { return false }
        return (try? BoxReader(source: source).children(of: nil, depth: 0))?.last?.isTruncated == true
    }

    /// Whether `path` starts as an MP4/MOV (an `ftyp` box) but holds no whole `moov`: a recording
    /// or download cut before its index, which FFmpeg refuses as invalid data.
    package static func lacksMovie(path: String) -> Bool {
        guard let source = try? FileByteSource(path: path) else { return false }
        let reader = BoxReader(source: source)
        guard let top = try? reader.children(of: nil, depth: 0), top.first?.type == "ftyp" else { return false }
        return !top.contains { $0.type == "moov" && !$0.isTruncated }
    }
}
