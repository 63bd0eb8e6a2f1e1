internal import CFFmpeg
import ConvertCore
import Foundation

/// Helpers that turn FFmpeg's negative return codes into ``ConvertError``s.
package enum FFmpeg {
    /// `AVERROR(EAGAIN)`: "no output now, send more input" (or the reverse). A normal state.
    static let again = offc_averror(EAGAIN)
    /// `AVERROR_EOF`: the end of a stream. A normal state.
    static let endOfFile = offc_averror_eof()
    /// `AVERROR_EXIT`: our interrupt callback stopped a blocking call.
    static let exit = offc_averror_exit()
    /// `AV_NOPTS_VALUE`: no timestamp. `INT64_C(0x8000000000000000)`, spelled here as the constant
    /// it is rather than read from the shim, so the packet loop compares with a literal instead of
    /// going through a lazy global's check for every timestamp (FFmpegLayerTests checks it equals
    /// the shim's value).
    static let noTimestamp: Int64 = .min

    /// FFmpeg's text for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(nulTerminated: buffer)
    }

    /// Throws for a negative `code` from `action` on `path`, categorised for the user.
    /// ENOSPC and EIO become device errors; an interrupted call becomes cancellation; the rest
    /// become the given category (input for reading, internal for library misuse).
    @discardableResult
    static func check(
        _ code: Int32, _ action: String, path: String, category: ConvertError.Category = .input
    ) throws(ConvertError) -> Int32 {
        guard code < 0 else { return code }
        throw error(code, action, path: path, category: category)
    }

    /// The error for an encoder that failed while writing `path`. An encoder that writes files of
    /// its own (x264's two-pass statistics) reports a failed write only as a failed encode
    /// (`AVERROR_EXTERNAL`), so a full disk read "failed while trying to encode": when the
    /// output's folder has (almost) nothing left, the real cause, `device.full`, is given.
    static func encoderError(_ code: Int32, path: String) -> ConvertError {
        let folder = (path as NSString).deletingLastPathComponent
        if code != exit, let free = try? FreeSpace.available(in: folder.isEmpty ? "." : folder), free < nearlyFull {
            return ConvertError(
                code: .deviceFull, message: "Not enough space to write \(path).",
                path: path, underlying: "encode: \(describe(code))")
        }
        return error(code, "encode", path: path, category: .internal)
    }

    /// Free bytes under which a folder counts as full: less than one encoder write buffer.
    static let nearlyFull: Int64 = 256 << 10

    static func error(
        _ code: Int32, _ action: String, path: String, category: ConvertError.Category = .input
    ) -> ConvertError {
        let text = describe(code)
        if code == exit { return .cancelled(path: path) }
        if code == offc_averror(ENOSPC) || code == offc_averror(EDQUOT) {
            return ConvertError(
                code: .deviceFull, message: "Not enough space to write \(path).",
                path: path, underlying: "\(action): \(text)")
        }
        if code == offc_averror(EIO) && category != .input {
            return ConvertError(
                code: .deviceIo, message: "Writing \(path) failed.",
                path: path, underlying: "\(action): \(text)")
        }
        // While reading, ENOMEM is FFmpeg refusing an allocation a damaged header asked for (a
        // sample description claiming 2 GB, say: av_malloc caps requests), not the machine
        // running out: the file is at fault.
        if code == offc_averror(ENOMEM) && category == .input {
            return ConvertError(
                code: .inputCorrupt,
                message: "\(path) could not be read: it declares impossible sizes (the file is damaged).",
                path: path, underlying: "\(action): \(text)")
        }
        if code == offc_averror(ENOMEM) {
            return ConvertError(
                code: .internalMemory, message: "Ran out of memory while converting \(path).",
                path: path, underlying: "\(action): \(text)")
        }
        if category == .input {
            return ConvertError(
                code: .inputCorrupt,
                message: "\(path) could not be read: the file is damaged or not a media file.",
                path: path, underlying: "\(action): \(text)")
        }
        let codes: [ConvertError.Category: ConvertError.Code] = [
            .unsupported: .unsupportedFfmpeg, .device: .deviceFfmpeg,
        ]
        return ConvertError(
            code: codes[category] ?? .internalFfmpeg, message: "Converting \(path) failed while trying to \(action).",
            path: path, underlying: text)
    }
}
