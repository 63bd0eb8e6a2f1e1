import ConvertCore

/// A fragmented MP4 (`moov` with `mvex`, then `moof`/`mdat` pairs), as screen recorders, browsers
/// (MediaRecorder) and DASH write it. Its header says nothing true about its length (0, or
/// 0xFFFFFFFF ticks: "143166 s" at 30000 per second): the fragments are the clip, and only a
/// last box that runs past the end of the file says it was cut short.
enum FragmentedMovie {
    /// How a fragmented file ends.
    enum Ending: Equatable {
        /// Its last box is whole.
        case whole
        /// Its last box runs past the end of the file: a recording or download cut short.
        case cutShort
    }

    /// How the fragmented MP4 at `path` ends; nil for any other (or unreadable) file.
    static func ending(path: String) -> Ending? {
        guard let source = try? FileByteSource(path: path) else { return nil }
        let reader = BoxReader(source: source)
        guard let top = try? reader.children(of: nil, depth: 0),
            let movie = top.first(where: { $0.type == "moov" }),
            (try? reader.child("mvex", of: movie, depth: 1)) != nil
        else { return nil }
        return top.last?.isTruncated == true ? .cutShort : .whole
    }
}
