internal import COpenJPEG

/// Owns one OpenJPEG decompression (the codec, its memory stream and the image it fills, freed
/// with `opj_destroy_codec`, `opj_stream_destroy` and `opj_image_destroy`) and what they read
/// from and report to: the file's bytes and the message collector, allocated here so their
/// addresses stay fixed until `deinit`. Not `Sendable`: one decode owns it.
final class OpenJPEGDecoder {
    private let codec: UnsafeMutablePointer<opj_codec_t?>
    private let stream: UnsafeMutablePointer<opj_stream_t?>
    private var image: UnsafeMutablePointer<opj_image_t>?
    private let source: UnsafeMutablePointer<offc_opj_source>
    private let messages: UnsafeMutablePointer<offc_opj_messages>
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let path: String

    /// One decoded component: its samples (row by row, `width` a row) and how to read them.
    struct Component {
        var width: Int
        var height: Int
        var precision: Int
        var signed: Bool
        var isAlpha: Bool
        var samples: [Int32]
    }

    /// The header of a JPEG 2000 picture: its size on the reference grid and its components.
    struct Header {
        var width: Int
        var height: Int
        var componentCount: Int
        /// The largest component precision in bits.
        var precision: Int
        /// OPJ_CLRSPC_*: 1 sRGB, 2 grey, 3 sYCC, 5 CMYK, 0 unspecified.
        var colorSpace: Int
        var hasAlpha: Bool
        var icc: [UInt8]?
    }

    /// Opens the JPEG 2000 picture in `data`: a JP2/JPX file when `boxed`, else a bare codestream.
    init(_ data: [UInt8], boxed: Bool, path: String) throws(ConvertError) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, data.count))
        _ = copy.initialize(from: data)
        let source = UnsafeMutablePointer<offc_opj_source>.allocate(capacity: 1)
        source.initialize(to: offc_opj_source(data: copy.baseAddress, size: data.count, offset: 0))
        let messages = UnsafeMutablePointer<offc_opj_messages>.allocate(capacity: 1)
        messages.initialize(to: offc_opj_messages())
        guard let codec = opj_create_decompress(boxed ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K),
            let stream = offc_opj_memory_stream(source)
        else {
            copy.deallocate()
            source.deallocate()
            messages.deallocate()
            throw ConvertError(code: .internalMemory, message: "Out of memory opening \(path).", path: path)
        }
        (self.codec, self.stream, self.source, self.messages, bytes, self.path) =
            (codec, stream, source, messages, copy, path)
        offc_opj_collect_messages(codec, messages)
        var parameters = opj_dparameters_t()
        opj_set_default_decoder_parameters(&parameters)
        guard opj_setup_decoder(codec, &parameters) != 0 else { throw damaged("the decoder could not be set up") }
        var read: UnsafeMutablePointer<opj_image_t>?
        let ok = opj_read_header(stream, codec, &read)
        image = read
        guard ok != 0, let read, read.pointee.numcomps > 0, read.pointee.comps != nil else {
            throw damaged("its header cannot be read")
        }
    }

    deinit {
        if let image { opj_image_destroy(image) }
        opj_stream_destroy(stream)
        opj_destroy_codec(codec)
        bytes.deallocate()
        source.deallocate()
        messages.deallocate()
    }

    /// The `input.corrupt` error, with OpenJPEG's first error message when it gave one.
    private func damaged(_ reason: String) -> ConvertError {
        let said = withUnsafeBytes(of: messages.pointee.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let detail = said.trimmingWhitespaceAndNewlines()
        return ConvertError(
            code: .inputCorrupt,
            message: "\(path) is damaged or not a JPEG 2000 image: \(reason)\(detail.isEmpty ? "" : " (\(detail))").",
            path: path)
    }

    /// What the header says (before any pixel is decoded).
    var header: Header {
        guard let image else {
            return Header(
                width: 0, height: 0, componentCount: 0, precision: 0, colorSpace: 0, hasAlpha: false, icc: nil)
        }
        let info = image.pointee
        let count = Int(info.numcomps)
        let components = (0..<count).map { info.comps[$0] }
        var icc: [UInt8]?
        if let buffer = info.icc_profile_buf, info.icc_profile_len > 0 {
            icc = Array(UnsafeBufferPointer(start: buffer, count: Int(info.icc_profile_len)))
        }
        return Header(
            width: Int(info.x1) - Int(info.x0), height: Int(info.y1) - Int(info.y0), componentCount: count,
            precision: components.map { Int($0.prec) }.max() ?? 0, colorSpace: Int(info.color_space.rawValue),
            hasAlpha: components.contains { $0.alpha != 0 }, icc: icc)
    }

    /// Decodes every component. Throws `input.corrupt` with OpenJPEG's reason when the
    /// codestream is damaged.
    func decode() throws(ConvertError) -> [Component] {
        guard let image else { throw damaged("no picture") }
        guard opj_decode(codec, stream, image) != 0, opj_end_decompress(codec, stream) != 0 else {
            throw damaged("its codestream cannot be decoded")
        }
        var components: [Component] = []
        for index in 0..<Int(image.pointee.numcomps) {
            let component = image.pointee.comps[index]
            let count = Int(component.w) * Int(component.h)
            guard let data = component.data, count > 0, (1...16).contains(component.prec) else {
                throw damaged("component \(index) has no samples or \(component.prec) bits")
            }
            components.append(
                Component(
                    width: Int(component.w), height: Int(component.h), precision: Int(component.prec),
                    signed: component.sgnd != 0, isAlpha: component.alpha != 0,
                    samples: Array(UnsafeBufferPointer(start: data, count: count))))
        }
        return components
    }
}
