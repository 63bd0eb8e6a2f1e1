import ConvertCore

#if canImport(Glibc)
    import Glibc
#endif

/// Ends the edit lists of an MP4/MOV that FFmpeg's muxer just wrote where the source's ended.
///
/// FFmpeg 5.1's MOV/MP4 muxer ends every track's edit at the end of its last presented sample. A
/// phone clip's edit list often ends earlier: before a frame that is still needed to decode
/// others (an iPhone's trimmed Dolby Vision clip: 5 samples, the last presented one only
/// referenced) or part-way into the last frame. The muxer has no option for the end, so after
/// it finishes, the media edit of such a track (and the track and movie durations with it) is
/// shortened in place: same box sizes, no sample touched, so every chunk offset stays valid.
enum EditListEnd {
    /// Shortens, in the file at `path`, each listed track's media edit by `trims[track]` seconds
    /// (`track` counts `trak` boxes from 0, the muxer's stream order).
    static func shorten(path: String, by trims: [Int: Double]) throws(ConvertError) {
        guard trims.values.contains(where: { $0 > 0 }) else { return }
        let source = try FileByteSource(path: path)
        let moov: (offset: Int, bytes: [UInt8])
        do {
            let topLevel = try BoxReader(source: source).children(of: nil, depth: 0)
            guard let box = topLevel.first(where: { $0.type == "moov" && !$0.isTruncated }),
                box.size <= 64 << 20
            else { return }
            moov = (Int(box.offset), try source.read(whole: Int(box.size), at: box.offset))
        } catch {
            throw ConvertError(
                code: .internalEditList, message: "\(path) cannot be read back: \(error).",
                path: path)
        }
        let patched: [UInt8]
        do { patched = try shortened(moov.bytes, by: trims) } catch {
            throw ConvertError(
                code: .internalEditList, message: "\(path) has a movie box FFmpeg wrote badly: \(error).",
                path: path)
        }
        guard patched != moov.bytes else { return }
        try write(patched, at: moov.offset, path: path)
    }

    /// `moov` (a whole movie box) with the edits of the tracks in `trims` shortened.
    static func shortened(_ moov: [UInt8], by trims: [Int: Double]) throws(BoxError) -> [UInt8] {
        var bytes = moov
        guard let root = try ByteBox.children(of: bytes, in: 0..<bytes.count).first, root.type == "moov" else {
            return moov
        }
        let children = try ByteBox.children(of: bytes, in: root.payloadStart..<root.end)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }),
            let movieDuration = DurationField.mvhd(bytes, mvhd)
        else { return moov }
        // The movie timescale is the word just before the duration in both versions of mvhd.
        let timescale = Double(ByteBox.u32(bytes, movieDuration.offset - 4))
        guard timescale > 0 else { return moov }
        var longestTrack: UInt64 = 0
        for (number, trak) in children.filter({ $0.type == "trak" }).enumerated() {
            let parts = try ByteBox.children(of: bytes, in: trak.payloadStart..<trak.end)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }),
                let trackDuration = DurationField.tkhd(bytes, tkhd)
            else { continue }
            if let seconds = trims[number], seconds > 0,
                let edts = parts.first(where: { $0.type == "edts" }),
                let elst = try ByteBox.children(of: bytes, in: edts.payloadStart..<edts.end).first(where: {
                    $0.type == "elst"
                }),
                let edit = DurationField.mediaEdit(bytes, elst)
            {
                // The trim rounds up so that the kept edit rounds down: an edit a tick too long
                // shows a frame the source hides. A millionth of a tick of slack keeps an exact
                // trim (0.06 s at 1000 ticks a second) from becoming one tick more.
                let units = UInt64((seconds * timescale - 1e-6).rounded(.up))
                let old = edit.read(bytes)
                if units > 0 && units < old {
                    edit.write(old - units, into: &bytes)
                    let track = trackDuration.read(bytes)
                    trackDuration.write(track > units ? track - units : 0, into: &bytes)
                }
            }
            longestTrack = max(longestTrack, trackDuration.read(bytes))
        }
        if longestTrack < movieDuration.read(bytes) { movieDuration.write(longestTrack, into: &bytes) }
        return bytes
    }

    private static func write(_ bytes: [UInt8], at offset: Int, path: String) throws(ConvertError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileSystem(errno, action: "write", path: path) }
        defer { close(descriptor) }
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pwrite(descriptor, base + done, raw.count - done, off_t(offset + done))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(errno, action: "write", path: path)
            }
            done += written
        }
    }
}

extension EditListEnd {
    /// A big-endian unsigned duration field of 4 or 8 bytes inside a movie box.
    struct DurationField {
        let offset: Int
        let width: Int

        func read(_ bytes: [UInt8]) -> UInt64 {
            width == 8 ? ByteBox.u64(bytes, offset) : UInt64(ByteBox.u32(bytes, offset))
        }

        func write(_ value: UInt64, into bytes: inout [UInt8]) {
            for index in 0..<width {
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - index)))
            }
        }

        /// `mvhd`'s duration: after version/flags, creation and modification times and the timescale.
        static func mvhd(_ bytes: [UInt8], _ box: ByteBox) -> DurationField? {
            field(bytes, box, v0: 4 + 12, v1: 4 + 20)
        }

        /// `tkhd`'s duration: after version/flags, the two times, the track ID and a reserved word.
        static func tkhd(_ bytes: [UInt8], _ box: ByteBox) -> DurationField? {
            field(bytes, box, v0: 4 + 16, v1: 4 + 24)
        }

        /// The segment duration of an `elst`'s one media edit (the entry whose media time is not -1),
        /// nil when the list has none or several: only the muxer's own shape is edited.
        static func mediaEdit(_ bytes: [UInt8], _ box: ByteBox) -> DurationField? {
            let start = box.payloadStart
            guard start + 8 <= box.end else { return nil }
            let wide = bytes[start] == 1
            let entrySize = wide ? 20 : 12
            let count = Int(ByteBox.u32(bytes, start + 4))
            guard count > 0, count <= 4, start + 8 + count * entrySize <= box.end else { return nil }
            var found: DurationField?
            for index in 0..<count {
                let entry = start + 8 + index * entrySize
                let mediaTime = wide ? ByteBox.u64(bytes, entry + 8) : UInt64(ByteBox.u32(bytes, entry + 4))
                let empty = wide ? mediaTime == UInt64.max : mediaTime == UInt64(UInt32.max)
                if empty { continue }
                guard found == nil else { return nil }
                found = DurationField(offset: entry, width: wide ? 8 : 4)
            }
            return found
        }

        private static func field(_ bytes: [UInt8], _ box: ByteBox, v0: Int, v1: Int) -> DurationField? {
            guard box.payloadStart < box.end else { return nil }
            let wide = bytes[box.payloadStart] == 1
            let offset = box.payloadStart + (wide ? v1 : v0)
            let width = wide ? 8 : 4
            guard offset + width <= box.end else { return nil }
            return DurationField(offset: offset, width: width)
        }
    }
}
