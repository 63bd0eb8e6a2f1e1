/// One conversion's readers of its input: the ``PhotoInput`` (format, HEIF item model), the
/// ``HeifFile`` on that model, and libheif's context of the file once a step asks for it. The
/// context is read at most once and shared by the direct JPEG path (its libheif fallback), the
/// general decoder and every smaller decode of a target-size search, so libheif parses a file
/// once per conversion too.
///
/// Not `Sendable`: libheif's context stays on the conversion's thread (the gain-map worker takes
/// the ``HeifFile``, which is).
final class OpenedPhoto {
    /// The path as given.
    let path: String
    /// The format by content.
    let format: PhotoFormat
    /// Offconvert's reader of a HEIF input; nil for other formats, for an AVIF opened to be
    /// converted and for a HEIF whose structure the reader does not follow.
    let heif: HeifFile?
    /// libheif's tile threads for the context (see ``DecodingThreads``).
    let decodingThreads: Int
    private var context: HeifContext?
    /// Whether the input is a motion photo, once a step that held its bytes has said.
    private var motion: Bool?

    /// Takes over `input` (its file opened again when it was detached).
    init(_ input: PhotoInput, decodingThreads: Int) throws(ConvertError) {
        path = input.path
        format = input.format
        heif = try input.heifFile()
        self.decodingThreads = decodingThreads
    }

    /// Records what a step that read the whole JPEG `file` shows of a motion part.
    func sawJPEG(_ file: [UInt8]) {
        guard motion == nil, format == .jpeg else { return }
        motion = MotionPhoto.isMotionJPEG(xmp: JPEGMarkers.metadata(file).xmp, file: MemoryByteSource(bytes: file))
    }

    /// Records what a step that read a JPEG's head (`xmp`, its XMP packet) on the open `file` shows
    /// of a motion part; only the file's last bytes (a Samsung trailer) are read.
    func sawJPEGHead(xmp: [UInt8]?, file: some ByteSource) {
        guard motion == nil, format == .jpeg else { return }
        motion = MotionPhoto.isMotionJPEG(xmp: xmp, file: file)
    }

    /// Whether the input is a motion photo (its video is not converted, and the result says so),
    /// answered from what the conversion read: the bytes a JPEG step held, or the HEIF reader's
    /// item model and open file (only a Samsung trailer's last bytes are read). Only when no
    /// step held either (an AVIF, a HEIF offconvert's reader does not follow, a JPEG path that
    /// returned before reading) is the file opened again, for a bounded read of its head and tail.
    func isMotionPhoto() -> Bool {
        if let motion { return motion }
        // Only JPEG and HEIF files carry a motion part; no other format needs a read.
        guard [.jpeg, .heic, .avif].contains(format) else { return false }
        if let heif {
            return MotionPhoto.isMotionHEIF(file: heif.meta.source) { heif.meta.topLevelTypes }
        }
        return MotionPhoto.isMotionPhoto(path: path)
    }

    /// libheif's context of the file, read the first time it is asked for.
    func libheif() throws(ConvertError) -> HeifContext {
        if let context { return context }
        let opened = try HeifContext.reading(path: path, decodingThreads: decodingThreads, meta: heif?.meta)
        context = opened
        return opened
    }
}
