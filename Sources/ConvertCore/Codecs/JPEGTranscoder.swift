internal import CJPEGShim

/// Owns a libjpeg decoder and encoder pair (`offc_jpeg_transcoder`) that re-encodes a JPEG from
/// one file descriptor to another a band of 16 rows at a time; freed in `deinit`. Neither the
/// input, the bitmap nor the output is ever whole in memory, except a turned 4:2:0 picture's
/// planes (1.5 bytes a pixel): see `jpeg_transcoder.h`.
final class JPEGTranscoder {
    /// What the input's header says.
    struct Source: Equatable {
        var width: Int
        var height: Int
        /// Components in the frame (1 grey, 3 colour, 4 CMYK/YCCK).
        var components: Int
        /// Whether libjpeg reads the components as YCbCr.
        var isYCbCr: Bool
        /// Whether the stream is progressive: libjpeg then holds every coefficient (2 bytes a
        /// sample) before the first row comes out.
        var isProgressive: Bool
        /// Bits per sample.
        var precision: Int
        /// Whether the chroma is sampled 4:2:0 (luma 2x2, chroma 1x1).
        var is420: Bool
        /// Whether the sampling can be turned (luma at the highest sampling, chroma at the same or
        /// half of it each way: 4:2:0, 4:2:2, 4:4:0, 4:4:4).
        var isTurnable: Bool
        /// The decoded planes' bytes a pixel (1.5 at 4:2:0, 2 at 4:2:2, 3 at 4:4:4).
        var planeBytesPerPixel: Double

        /// A header's facts, the sampling of its first three components given as (h, v) factors.
        init(
            width: Int, height: Int, components: Int, isYCbCr: Bool, isProgressive: Bool, precision: Int,
            sampling: [(h: Int, v: Int)]
        ) {
            (self.width, self.height, self.components, self.isYCbCr) = (width, height, components, isYCbCr)
            (self.isProgressive, self.precision) = (isProgressive, precision)
            let luma = sampling.first ?? (1, 1)
            let chroma = sampling.dropFirst()
            is420 = luma == (2, 2) && chroma.allSatisfy { $0 == (1, 1) }
            let maxH = sampling.map(\.h).max() ?? 1
            let maxV = sampling.map(\.v).max() ?? 1
            isTurnable =
                luma.h == maxH && luma.v == maxV && maxH <= 2 && maxV <= 2
                && chroma.allSatisfy { ($0.h == 1 || $0.h == maxH) && ($0.v == 1 || $0.v == maxV) }
            planeBytesPerPixel = sampling.reduce(0) { $0 + Double($1.h * $1.v) / Double(max(1, maxH * maxV)) }
        }

        /// Whether ``JPEGTranscoder/start(output:quality:orientation:segments:displayPath:)`` takes
        /// this source turned by `orientation`: an 8-bit YCbCr colour JPEG, of a sampling it can
        /// turn unless it stays as it is.
        func isTranscodable(orientation: Int) -> Bool {
            components == 3 && isYCbCr && precision == 8 && (orientation == 1 || isTurnable)
        }

        /// The bytes the transcoder holds beside libjpeg's tables and its 320 KiB of I/O buffers:
        /// a progressive stream's coefficients (2 bytes a sample), a turned picture's planes, or
        /// one band.
        func workingBytes(orientation: Int) -> Int64 {
            let pixels = Int64(width) * Int64(height)
            var bytes = Int64(width) * 16 * 3 * 2
            // 2 bytes a coefficient, a coefficient a plane sample.
            if isProgressive { bytes += Int64(Double(pixels) * planeBytesPerPixel * 2) }
            if orientation != 1 { bytes += Int64(Double(pixels) * planeBytesPerPixel) }
            return bytes
        }
    }

    /// What libjpeg repaired in the input (warnings, not errors).
    struct Damage: Equatable {
        /// Warnings libjpeg gave while decoding.
        var warnings: Int
        /// Whether the file ended before the picture did.
        var endedEarly: Bool
        /// Source rows decoded when it ended.
        var rowsBeforeEnd: Int
    }

    private let transcoder: OpaquePointer
    /// The input's header.
    let source: Source
    private let path: String

    /// Reads the header of the JPEG on `input`, which must stay open until this is released;
    /// `path` names it in errors. With `strict`, any damage in the data is an error.
    init(input: Int32, strict: Bool, path: String) throws(ConvertError) {
        var info = offc_jpeg_source_info()
        var error = [CChar](repeating: 0, count: 256)
        guard let transcoder = offc_jpeg_transcoder_open(input, strict ? 1 : 0, &info, &error, error.count) else {
            throw ConvertError(
                code: .inputCorrupt, message: "\(path) is damaged: its JPEG header could not be read.", path: path,
                underlying: Self.text(error))
        }
        self.transcoder = transcoder
        self.path = path
        source = Source(
            width: Int(info.width), height: Int(info.height), components: Int(info.components),
            isYCbCr: info.ycbcr != 0,
            isProgressive: info.progressive != 0, precision: Int(info.precision),
            sampling: [
                (Int(info.h_samp.0), Int(info.v_samp.0)), (Int(info.h_samp.1), Int(info.v_samp.1)),
                (Int(info.h_samp.2), Int(info.v_samp.2)),
            ])
    }

    deinit { offc_jpeg_transcoder_free(transcoder) }

    /// Starts the output on `output` (`displayPath` names it in errors): the picture at
    /// `quality`, turned upright from EXIF `orientation`, with `segments` (whole APP marker
    /// segments) after its JFIF header.
    func start(output: Int32, quality: Int, orientation: Int, segments: [UInt8], displayPath: String)
        throws(ConvertError)
    {
        precondition(source.isTranscodable(orientation: orientation), "a source the transcoder takes")
        var error = [CChar](repeating: 0, count: 256)
        let status = segments.withUnsafeBufferPointer { bytes in
            offc_jpeg_transcoder_start(
                transcoder, output, Int32(quality), Int32(orientation), bytes.baseAddress, bytes.count, &error,
                error.count)
        }
        guard status == 0 else { throw failure(error, displayPath: displayPath) }
    }

    /// Does the next band: whether the output is complete and flushed, and the share done.
    func step(displayPath: String) throws(ConvertError) -> (done: Bool, progress: Double) {
        var progress = 0.0
        var error = [CChar](repeating: 0, count: 256)
        let status = offc_jpeg_transcoder_step(transcoder, &progress, &error, error.count)
        guard status >= 0 else { throw failure(error, displayPath: displayPath) }
        return (status == 1, progress)
    }

    /// What libjpeg repaired so far.
    var damage: Damage {
        var damage = offc_jpeg_damage()
        offc_jpeg_transcoder_damage(transcoder, &damage)
        return Damage(
            warnings: Int(damage.warnings), endedEarly: damage.ended_early != 0,
            rowsBeforeEnd: Int(damage.rows_before_end))
    }

    /// The error of a failed call: the output's file system, the input's, or its data.
    private func failure(_ error: [CChar], displayPath: String) -> ConvertError {
        let writing = offc_jpeg_transcoder_errno(transcoder, 1)
        if writing != 0 { return .fileSystem(writing, action: "write", path: displayPath) }
        let reading = offc_jpeg_transcoder_errno(transcoder, 0)
        if reading != 0 { return .fileSystem(reading, action: "read", path: path) }
        let damage = self.damage
        if damage.warnings > 0 {
            // Only a strict decode stops at a warning.
            return ConvertError(
                code: damage.endedEarly ? .inputTruncated : .inputCorrupt,
                message: "\(path) is damaged: the JPEG data could not be decoded completely.", path: path,
                underlying: Self.text(error))
        }
        return ConvertError(
            code: .inputCorrupt, message: "\(path) is damaged: the JPEG data could not be decoded.", path: path,
            underlying: Self.text(error))
    }

    private static func text(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
