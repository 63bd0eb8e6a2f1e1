/// The EXIF block of a photo held in memory, found with our own readers (no decoder): a JPEG's
/// APP1 segment, or a HEIF file's `Exif` item. A HEIC that libheif cannot open (newer iOS
/// layouts) still gives its EXIF here.
enum PhotoEXIF {
    /// The EXIF TIFF stream of a JPEG (APP1) or a HEIF file (the `Exif` item, after its 4-byte
    /// offset to the TIFF header).
    package static func tiff(of file: [UInt8]) -> [UInt8]? {
        let kind = MediaSniffer.kind(of: Array(file.prefix(64)))
        if kind == .image(.jpeg) { return JPEGMarkers.metadata(file).exif }
        return kind.isHEIF ? tiff(heif: MemoryByteSource(bytes: file)) : nil
    }

    /// The EXIF block of the photo at `path`, reading only what it needs (the head of a JPEG, the
    /// item table and the Exif item of a HEIF file); nil when there is none or it cannot be read.
    package static func tiff(path: String) -> [UInt8]? {
        guard let source = try? FileByteSource(path: path), let head = try? source.read(at: 0, count: 64) else {
            return nil
        }
        let kind = MediaSniffer.kind(of: head)
        if kind == .image(.jpeg) {
            // EXIF is the first APP1 segment and at most 64 KiB; ICC and XMP may come before it.
            guard let start = try? source.read(at: 0, count: Int(min(source.size, 1 << 20))) else { return nil }
            return JPEGMarkers.metadata(start).exif
        }
        guard kind.isHEIF else { return nil }
        return tiff(heif: source)
    }

    private static func tiff(heif source: some ByteSource) -> [UInt8]? {
        guard let meta = try? HeifMeta(source: source), let id = meta.exifItems.first,
            let data = try? meta.data(of: id, limit: 1 << 20), data.count > 8
        else { return nil }
        let skip = Int(ByteBox.u32(data, 0))
        guard skip <= data.count - 8 else { return nil }
        return Array(data[(4 + skip)...])
    }
}
