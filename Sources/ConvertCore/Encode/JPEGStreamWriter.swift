internal import CJPEGShim

/// Owns a libjpeg compressor (`offc_jpeg_writer`) that is fed a YCbCr 4:2:0 picture band by band
/// and writes its JPEG stream to memory; freed in `deinit`. The stream is the one
/// ``TurboJPEGHandle/encodeYUV420(planes:strides:width:height:quality:)`` makes of the same
/// planes, but no whole picture's planes need to exist at once (see CJPEGShim.h).
final class JPEGStreamWriter {
    private let writer: OpaquePointer
    /// The picture's size.
    let width: Int
    let height: Int
    /// Luma rows added so far.
    private(set) var rowsAdded = 0

    /// A stream of a `width`×`height` picture at `quality`.
    init(width: Int, height: Int, quality: Int) throws(ConvertError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let writer = offc_jpeg_writer_start(UInt32(width), UInt32(height), Int32(quality), &error, error.count)
        else {
            throw Self.failure(error)
        }
        self.writer = writer
        self.width = width
        self.height = height
    }

    deinit { offc_jpeg_writer_free(writer) }

    /// Adds the next rows of the picture: all of `band`'s (an 8-bit picture as wide as this one;
    /// its rows must be even in number unless it is the picture's last band).
    func add(_ band: YCbCr420Image) throws(ConvertError) {
        precondition(band.width == width && band.bitDepth == 8, "a band as wide as the picture, 8-bit")
        precondition(band.height % 2 == 0 || rowsAdded + band.height == height, "only the last band has an odd height")
        var error = [CChar](repeating: 0, count: 256)
        let status = band.withPlanes { planes, strides in
            // An odd last band lends its repeated padding row too: the plane's height is even.
            offc_jpeg_writer_add(
                writer, planes[0], Int(strides[0]), band.lumaByteCount, planes[1], planes[2], Int(strides[1]),
                band.chromaByteCount,
                UInt32((band.height + 1) / 2 * 2), &error, error.count)
        }
        guard status == 0 else { throw Self.failure(error) }
        rowsAdded += band.height
    }

    /// The finished stream, once every row was added.
    func finish() throws(ConvertError) -> [UInt8] {
        var error = [CChar](repeating: 0, count: 256)
        var data: UnsafePointer<UInt8>?
        var size = 0
        guard offc_jpeg_writer_finish(writer, &data, &size, &error, error.count) == 0, let data else {
            throw Self.failure(error)
        }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    private static func failure(_ error: [CChar]) -> ConvertError {
        let detail = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ConvertError(code: .encodeFailed, message: "JPEG encoding failed.", underlying: detail)
    }
}
