internal import CHeif

/// Owns a `heif_context` (one HEIF file being read or written); freed with `heif_context_free`.
final class HeifContext {
    /// The reads of watched files (tests prove with it that a conversion gives libheif its input once).
    static let reads = FileReadCounter()

    private let pointer: OpaquePointer
    let path: String

    /// An empty context, for writing.
    init(forWritingTo path: String) throws(ConvertError) {
        guard let context = heif_context_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        pointer = context
        self.path = path
    }

    /// Reads the file's structure (not its pixels). `decodingThreads` bounds libheif's tile
    /// threads; 0 decodes the tiles on the calling thread (see ``DecodingThreads``).
    init(reading path: String, decodingThreads: Int) throws(ConvertError) {
        guard let context = heif_context_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        pointer = context
        self.path = path
        heif_context_set_max_decoding_threads(context, Int32(clamping: max(0, decodingThreads)))
        Self.reads.count(path: path)
        try Heif.check(
            PathEncoding.withCString(path) { heif_context_read_from_file(context, $0, nil) }, "read", path: path)
    }

    /// Reads the structure of a HEIF file held in `bytes` (libheif copies them), on the calling
    /// thread; `path` names the file they came from in errors. For an image libheif 1.15 cannot
    /// reach in its own file (a `tmap` item's hidden gain-map input), rewrapped as a file's
    /// primary (see ``AVIFGainMapImage``).
    init(bytes: [UInt8], path: String) throws(ConvertError) {
        guard let context = heif_context_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.", path: path)
        }
        pointer = context
        self.path = path
        heif_context_set_max_decoding_threads(context, 0)
        try Heif.check(
            bytes.withUnsafeBytes { heif_context_read_from_memory(context, $0.baseAddress, $0.count, nil) }, "read",
            path: path)
    }

    deinit { heif_context_free(pointer) }

    /// Lends the raw context to libheif calls; it must not escape `body`.
    func withContext<T>(_ body: (OpaquePointer) throws(ConvertError) -> T) throws(ConvertError) -> T {
        try body(pointer)
    }

    /// IDs of the top-level images (aux images and thumbnails excluded), in file order.
    var topLevelImageIDs: [UInt32] {
        let count = heif_context_get_number_of_top_level_images(pointer)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let filled = heif_context_get_list_of_top_level_image_IDs(pointer, &ids, count)
        return Array(ids.prefix(Int(max(0, filled))))
    }

    /// The primary image.
    func primaryImage() throws(ConvertError) -> HeifImageHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_context_get_primary_image_handle(pointer, &handle), "read", path: path)
        guard let handle else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) has no primary image.", path: path)
        }
        return HeifImageHandle(handle, context: self)
    }

    /// The top-level image with `id`.
    func image(id: UInt32) throws(ConvertError) -> HeifImageHandle {
        var handle: OpaquePointer?
        try Heif.check(heif_context_get_image_handle(pointer, id, &handle), "read", path: path)
        guard let handle else {
            throw ConvertError(code: .inputCorrupt, message: "\(path) lacks image \(id).", path: path)
        }
        return HeifImageHandle(handle, context: self)
    }

    /// Writes the context to `path` (a staged temporary file).
    func write(to path: String) throws(ConvertError) {
        let error = PathEncoding.withCString(path) { heif_context_write_to_file(pointer, $0) }
        guard error.code == heif_error_Ok else {
            throw ConvertError(
                code: .deviceIo, message: "Could not write \(self.path).", path: self.path,
                underlying: error.message.map { String(cString: $0) })
        }
    }
}
