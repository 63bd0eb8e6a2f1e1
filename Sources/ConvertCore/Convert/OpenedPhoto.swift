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

    /// Takes over `input` (its file opened again when it was detached).
    init(_ input: PhotoInput, decodingThreads: Int) throws(ConvertError) {
        path = input.path
        format = input.format
        heif = try input.heifFile()
        self.decodingThreads = decodingThreads
    }

    /// libheif's context of the file, read the first time it is asked for.
    func libheif() throws(ConvertError) -> HeifContext {
        if let context { return context }
        let opened = try HeifContext(reading: path, decodingThreads: decodingThreads)
        context = opened
        return opened
    }
}
