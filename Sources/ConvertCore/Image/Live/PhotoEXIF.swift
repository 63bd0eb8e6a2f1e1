/// The EXIF block of a photo held in memory, found with our own readers (no decoder): a JPEG's
/// APP1 segment, or a HEIF file's `Exif` item. A HEIC that libheif cannot open (newer iOS
/// layouts) still gives its EXIF here.
package enum PhotoEXIF {
    /// The EXIF TIFF stream of a JPEG (APP1) or a HEIF file (the `Exif` item, after its 4-byte
    /// offset to the TIFF header).
    package static func tiff(of file: [UInt8]) -> [UInt8]? {
        if file.starts(with: [0xFF, 0xD8]) { return JPEGMarkers.metadata(file).exif }
        return tiff(heif: MemoryByteSource(bytes: file))
    }

    /// The EXIF block of the photo at `path`, reading only what it needs (the head of a JPEG, the
    /// item table and the Exif item of a HEIF file); nil when there is none or it cannot be read.
    package static func tiff(path: String) -> [UInt8]? {
        guard let source = try? FileByteSource(path: path), let head = try? source.read(at: 0, count: 16) else { return nil }
        if head.starts(with: [0xFF, 0xD8]) {
            // EXIF is the first APP1 segment and at most 64 KiB; ICC and XMP may come before it.
            guard let start = try? source.read(at: 0, count: Int(min(source.size, 1 << 20))) else { return nil }
            return JPEGMarkers.metadata(start).exif
        }
        guard head.count >= 8, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        return tiff(heif: source)
    }

    private static func tiff(heif source: some ByteSource) -> [UInt8]? {
        guard let table = try? HeifItemTable(reader: BoxReader(source: source)),
            let id = table.types.first(where: { $0.value == "Exif" })?.key,
            let data = try? table.data(of: id, limit: 1 << 20), data.count > 8
        else { return nil }
        let skip = Int(ByteBox.u32(data, 0))
        guard skip <= data.count - 8 else { return nil }
        return Array(data[(4 + skip)...])
    }
}
