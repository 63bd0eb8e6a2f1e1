import ConvertCore

extension MediaSnapshot {
    /// Why a file has no usable video stream, in words a user can act on.
    ///
    /// FFmpeg zeroes the size of a video stream its decoder refused while probing (an MJPEG
    /// track claiming 16384×16384, over what FFmpeg allocates), and such a stream was reported as
    /// no video track at all. When the file has a video stream, the size its MP4/MOV sample
    /// entry declares is read with our own box reader and the real reason is given: over the
    /// pixel limit (`input.too-many-pixels`), a size this build cannot decode
    /// (`unsupported.size`), or an unreadable size (`input.corrupt`). Only a file without any
    /// video stream (cover art aside) gets `input.no-video`.
    func missingVideoError(maxPixels: Int) -> ConvertError {
        guard let stream = streams.first(where: { $0.kind == .video && !$0.isAttachedPicture }) else {
            return ConvertError(code: .inputNoVideo, message: "\(path) has no video track.", path: path)
        }
        let declared = declaredVideoSize()
        if let (width, height) = declared {
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || pixels > maxPixels {
                return PixelLimit.exceeded(width: width, height: height, limit: maxPixels, path: path)
            }
            return ConvertError(
                code: .unsupportedSize,
                message:
                    "\(path) declares a \(width)x\(height) \(stream.codecName) video that FFmpeg cannot decode at that size.",
                path: path)
        }
        return ConvertError(
            code: .inputCorrupt,
            message: "\(path) is damaged: its \(stream.codecName) video track has no readable picture size.", path: path
        )
    }

    /// The width and height the first video track's sample entry declares, when the file is an
    /// MP4/MOV that declares one.
    private func declaredVideoSize() -> (Int, Int)? {
        guard let source = try? FileByteSource(path: path),
            let movie = try? MovieBoxScanner.scan(BoxReader(source: source))
        else { return nil }
        for track in movie.tracks where track.handler == "vide" {
            if let entry = track.sampleEntries.first, entry.declaredWidth > 0, entry.declaredHeight > 0 {
                return (entry.declaredWidth, entry.declaredHeight)
            }
        }
        return nil
    }
}
