/// A photo input read once: its format by content and, for a HEIF file, its item model
/// (``HeifMeta``). The probe that estimates a batch item's cost makes it, the batch item carries
/// it to the conversion, and every reader of the conversion (the direct JPEG path, the decoder,
/// the gain-map worker) takes its ``HeifFile`` from here: one parse per input.
///
/// A batch holds one for every waiting item, so a ``detached()`` input keeps no file open; the
/// conversion opens the file again (``heifFile()``) and parses it anew only when it changed size
/// since it was read.
package struct PhotoInput: Sendable {
    /// The path as given.
    package let path: String
    /// The format by content.
    package let format: PhotoFormat
    /// The HEIF item model (HEIC and AVIF inputs); nil for other formats and for a HEIF whose
    /// boxes are not an item structure this reader follows (libheif then judges it).
    let heifMeta: HeifMeta?

    /// What an input is opened for, which decides whether an AVIF's item structure is read.
    package enum Purpose: Sendable {
        /// Describing it (``ImageProbe``, a batch item's cost): the item model of a HEIC and of
        /// an AVIF (its `irot` and `imir`, which libheif applies and does not report).
        case describing
        /// Converting it: the item model of a HEIC, and of an AVIF whose `ftyp` lists the `tmap`
        /// brand (its gain map, which libheif 1.15 does not read, is found in it). libheif decodes
        /// other AVIFs and reads their structure itself, and no other step looks inside one.
        case converting
    }

    /// Sniffs the file at `path` and, for a HEIF, reads its item structure (see ``Purpose``).
    /// Throws what the sniffer and the reader refuse: a missing or unreadable file, an unknown
    /// format, an item table over one of ``HeifMeta/Limits``.
    package static func open(path: String, for purpose: Purpose = .describing) throws(ConvertError) -> PhotoInput {
        let format = try ImageDecoder.sniff(path: path)
        guard format == .heic || format == .avif else { return PhotoInput(path: path, format: format, heifMeta: nil) }
        let source = try FileByteSource(path: path)
        guard format == .heic || purpose == .describing || listsToneMapBrand(source) else {
            return PhotoInput(path: path, format: format, heifMeta: nil)
        }
        do {
            return PhotoInput(path: path, format: format, heifMeta: try HeifMeta(source: source))
        } catch {
            try HeifFile.refuse(error, path: path)
            return PhotoInput(path: path, format: format, heifMeta: nil)
        }
    }

    /// Whether the file's `ftyp` (its first box, read alone) lists the `tmap` brand, which a
    /// HEIF with an ISO 21496-1 gain map must.
    private static func listsToneMapBrand(_ source: some ByteSource) -> Bool {
        guard let head = try? source.read(at: 0, count: 256), head.count >= 16,
            FourCC(rawValue: ByteCursor.u32(head, at: 4)) == "ftyp"
        else { return false }
        let end = min(head.count, Int(ByteCursor.u32(head, at: 0)))
        return stride(from: 16, to: end - 3, by: 4).contains {
            FourCC(rawValue: ByteCursor.u32(head, at: $0)) == "tmap"
        }
    }

    /// This input without its open file, to wait in a batch.
    package func detached() -> PhotoInput {
        PhotoInput(path: path, format: format, heifMeta: heifMeta?.detached())
    }

    /// The HEIF file as offconvert's reader takes it (see ``HeifFile/init(meta:path:)``), its
    /// file opened again when this input was detached; nil when it is not one.
    func heifFile() throws(ConvertError) -> HeifFile? {
        guard var meta = heifMeta else { return nil }
        if meta.isDetached {
            let source = try FileByteSource(path: path)
            // Changed since the probe: what was read no longer describes it.
            guard source.size == meta.fileSize else { return try HeifFile.open(path: path) }
            meta = meta.rebound(to: source)
        }
        return try HeifFile(meta: meta, path: path)
    }
}
