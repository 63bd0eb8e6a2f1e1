internal import CTIFFShim

/// Owns one libtiff reader over bytes in memory (`offc_tiff`, closed with `offc_tiff_close`),
/// and the bytes it reads from, so they outlive it. Not `Sendable`: one decode owns it.
final class TIFFHandle {
    /// One page's tags as plain values (nothing here points into libtiff).
    struct Page {
        var width: Int
        var height: Int
        var bitsPerSample: Int
        var samplesPerPixel: Int
        /// PHOTOMETRIC_*: 0 min-is-white, 1 min-is-black, 2 RGB, 3 palette, 5 separated, 6 YCbCr.
        var photometric: Int
        /// 1 contiguous samples, 2 separate planes.
        var planarConfig: Int
        /// 1 unsigned integers, 2 signed, 3 floating point.
        var sampleFormat: Int
        /// The TIFF (and EXIF) orientation, 1...8.
        var orientation: Int
        /// 1 CMYK inks (the default), 2 other inks.
        var inkSet: Int
        /// The first extra sample is alpha: premultiplied (associated) or straight.
        var alpha: Alpha
        var tiled: Bool
        var icc: [UInt8]?
        var xmp: [UInt8]?

        /// What a page's first extra sample is.
        enum Alpha { case none, associated, unassociated }
    }

    private let reader: OpaquePointer
    /// The file's bytes: libtiff reads from them until `deinit`.
    private let bytes: UnsafeMutableBufferPointer<UInt8>

    /// Opens the TIFF held in `data`; `maxAllocation` bounds any one buffer libtiff allocates.
    /// Throws `input.corrupt` with libtiff's reason when its header or first page cannot be read.
    init(_ data: [UInt8], maxAllocation: Int, path: String) throws(ConvertError) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, data.count))
        _ = copy.initialize(from: data)
        var message = [CChar](repeating: 0, count: 256)
        guard
            let reader = offc_tiff_open(
                copy.baseAddress, data.count, UInt64(max(0, maxAllocation)), &message, message.count)
        else {
            copy.deallocate()
            throw TIFFHandle.damaged(path, reason: String(nulTerminated: message))
        }
        self.reader = reader
        bytes = copy
    }

    deinit {
        offc_tiff_close(reader)
        bytes.deallocate()
    }

    /// The pages (directories that are not thumbnails of another); at least 1 for a file that opened.
    var pageCount: Int { Int(offc_tiff_page_count(reader)) }

    /// The last error libtiff reported.
    var lastError: String { String(cString: offc_tiff_error(reader)) }

    /// Makes page `index` current and returns its tags.
    func select(page index: Int, path: String) throws(ConvertError) -> Page {
        var page = offc_tiff_page()
        guard offc_tiff_select_page(reader, Int32(index), &page) == 0 else {
            throw TIFFHandle.damaged(path, reason: lastError)
        }
        func copy(_ pointer: UnsafePointer<UInt8>?, _ count: UInt32) -> [UInt8]? {
            guard let pointer, count > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
        }
        let alpha: Page.Alpha =
            switch Int(page.alpha) {
            case Int(OFFC_TIFF_ALPHA_ASSOCIATED): .associated
            case Int(OFFC_TIFF_ALPHA_UNASSOCIATED): .unassociated
            default: .none
            }
        return Page(
            width: Int(page.width), height: Int(page.height), bitsPerSample: Int(page.bits_per_sample),
            samplesPerPixel: Int(page.samples_per_pixel), photometric: Int(page.photometric),
            planarConfig: Int(page.planar_config), sampleFormat: Int(page.sample_format),
            orientation: Int(page.orientation),
            inkSet: Int(page.ink_set), alpha: alpha, tiled: page.tiled != 0, icc: copy(page.icc, page.icc_size),
            xmp: copy(page.xmp, page.xmp_size))
    }

    /// The current page through libtiff's RGBA interface: 8-bit RGBA, alpha premultiplied, rows
    /// as stored. `damaged` is true when parts could not be read (they hold what libtiff left).
    func readRGBA(width: Int, height: Int, path: String) throws(ConvertError) -> (pixels: [UInt8], damaged: Bool) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let status = pixels.withUnsafeMutableBufferPointer { offc_tiff_read_rgba(reader, $0.baseAddress, $0.count) }
        guard status >= 0 else { throw TIFFHandle.damaged(path, reason: lastError) }
        return (pixels, status == 1)
    }

    /// The current page's samples as stored (contiguous, 8 or 16 bits, `samplesPerPixel` per
    /// pixel), rows as stored; blocks that cannot be read stay mid grey and are counted.
    func readSamples<Sample: FixedWidthInteger>(
        _ type: Sample.Type, count: Int, path: String
    ) throws(ConvertError) -> (samples: [Sample], failedBlocks: Int) {
        // Mid grey in both widths: every byte 0x80.
        var samples = [Sample](repeating: Sample(truncatingIfNeeded: 0x8080), count: count)
        var failed: UInt32 = 0
        let status = samples.withUnsafeMutableBytes { buffer in
            offc_tiff_read_samples(
                reader, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, &failed)
        }
        guard status == 0 else { throw TIFFHandle.damaged(path, reason: lastError) }
        return (samples, Int(failed))
    }

    /// The `input.corrupt` error, with libtiff's reason.
    static func damaged(_ path: String, reason: String) -> ConvertError {
        ConvertError(
            code: .inputCorrupt,
            message: reason.isEmpty
                ? "\(path) is damaged or not a TIFF image." : "\(path) is damaged or not a TIFF image: \(reason).",
            path: path)
    }
}
