import ConvertCore

#if canImport(Glibc)
    import Glibc
#endif

/// Moves the index (`moov`) of an MP4/MOV that FFmpeg's muxer just wrote, index last, in front of
/// its media data, so the file starts playing before it is all read: what the muxer's
/// `movflags=+faststart` does, without its second pass over a large file.
///
/// FFmpeg's faststart reads the whole file back and writes it again a few megabytes further on
/// (a 222 MB clip is read and written twice). Here, from ``insertionThreshold`` of media data
/// on, the data stays where it was written: the file system inserts room for the index in front
/// of it (`fallocate` with `FALLOC_FL_INSERT_RANGE`, which ext4 and XFS do by shifting extents, in
/// whole blocks), the index is written there with every chunk offset moved by the same amount,
/// and the old copy at the end is cut off. The file is then `ftyp`, `moov`, a `free` box filling
/// the rest of the inserted blocks (at most one block: 0.006 % of 64 MiB), then what followed
/// `ftyp` before (FFmpeg's own `free` box, the `mdat`). A smaller file, or one on a file system
/// that cannot insert a range (tmpfs, btrfs, NFS), has its data moved up by copying, by exactly
/// the index's size: the very bytes FFmpeg's faststart writes.
enum FastStart {
    /// The media data from which room is inserted rather than the data copied: below it copying
    /// takes a few milliseconds, and the file stays byte for byte FFmpeg's (no filler, which a
    /// small size target would notice).
    static let insertionThreshold: UInt64 = 64 << 20

    /// Moves the index of the file at `path` to the front (see ``FastStart``); a file whose index
    /// already precedes its data is left as it is. Room is inserted when the data before the
    /// index is at least `insertFrom` bytes (tests pass 0 and `.max` to try both ways).
    static func apply(path: String, insertFrom: UInt64 = insertionThreshold) throws(ConvertError) {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileSystem(errno, action: "write", path: path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .fileSystem(errno, action: "write", path: path) }
        let layout: Layout
        do {
            guard let found = try Layout(descriptor: descriptor, size: UInt64(info.st_size)) else { return }
            layout = found
        } catch {
            throw ConvertError(
                code: .internalFfmpeg, message: "\(path) cannot be read back: \(error).", path: path,
                underlying: error.description)
        }
        let moov = try BoxSource.readAll(descriptor, at: layout.moov.lowerBound, count: layout.moovSize, path: path)
        let header = try BoxSource.readAll(descriptor, at: 0, count: Int(layout.ftyp.upperBound), path: path)
        let block = max(UInt64(info.st_blksize), 512)
        let insert = layout.moov.lowerBound >= insertFrom
        let front: Front
        do { front = try Front(moov, block: insert ? block : nil) } catch {
            throw ConvertError(
                code: .internalFfmpeg, message: "\(path) has a movie box FFmpeg wrote badly: \(error).", path: path,
                underlying: error.description)
        }
        // Everything after `ftyp` up to the old index moves up by `room`: by the file system (which
        // moves `ftyp` too, into what becomes the free box), else by copying.
        let inserted = insert && RawFile.insertRange(descriptor, at: 0, length: Int64(front.room)) == nil
        if !inserted {
            let start = layout.ftyp.upperBound
            try moveUp(descriptor, range: start..<layout.moov.lowerBound, by: front.room, path: path)
        }
        try write(header + front.bytes, at: 0, descriptor: descriptor, path: path)
        // The old index, now at the end, goes.
        guard ftruncate(descriptor, off_t(layout.moov.lowerBound + front.room)) == 0 else {
            throw .fileSystem(errno, action: "write", path: path)
        }
    }

    /// What goes between `ftyp` and the data moved up: the index with its chunk offsets moved by
    /// ``room``, then a `free` box to fill the room where it is larger than the index.
    struct Front {
        /// How far the data moves.
        var room: UInt64
        /// The index and the free box after it, ``room`` bytes.
        var bytes: [UInt8]

        /// Whole `block`s of room (the file system inserts no less), else exactly the index's size.
        /// Moving the offsets can widen an `stco` into a `co64` and so grow the index: the room is
        /// then sized again, for at most a few rounds (each widening is for good).
        init(_ moov: [UInt8], block: UInt64?) throws(BoxError) {
            var room = block.map { FastStart.roundUp(UInt64(moov.count) + 8, to: $0) } ?? UInt64(moov.count)
            for _ in 0..<4 {
                let index = try FastStart.shifted(moov, by: room)
                let size = UInt64(index.count)
                if size == room {
                    (self.room, bytes) = (room, index)
                    return
                }
                if size + 8 <= room {
                    let filler = FastStart.u32(UInt32(room - size)) + Array("free".utf8)
                    (self.room, bytes) = (room, index + filler + [UInt8](repeating: 0, count: Int(room - size) - 8))
                    return
                }
                room = block.map { FastStart.roundUp(size + 8, to: $0) } ?? size
            }
            throw BoxError.overLimit(what: "rounds of chunk offsets to widen", limit: 4)
        }
    }

    /// Where the boxes the move needs are: `ftyp` first, the media data, the index last.
    struct Layout {
        /// The `ftyp` box, at 0.
        var ftyp: Range<UInt64>
        /// The `moov` box, at the end of the file.
        var moov: Range<UInt64>

        var moovSize: Int { Int(moov.upperBound - moov.lowerBound) }

        /// The layout of the file open as `descriptor`, `size` bytes long; nil when its index is
        /// already in front of its media data (nothing to move).
        init?(descriptor: Int32, size: UInt64) throws(BoxError) {
            let boxes = try BoxReader(source: BoxSource(descriptor: descriptor, size: size)).children(of: nil, depth: 0)
            guard let first = boxes.first, first.type == "ftyp", !first.isTruncated else {
                throw BoxError.truncatedPayload(type: "ftyp")
            }
            guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else {
                throw BoxError.truncatedPayload(type: "moov")
            }
            // Already in front of the media data, or no media data to be in front of.
            guard let mdatIndex = boxes.firstIndex(where: { $0.type == "mdat" }), mdatIndex < moovIndex else {
                return nil
            }
            // FFmpeg's muxer writes its index last, once.
            let moov = boxes[moovIndex]
            guard moovIndex == boxes.count - 1, !moov.isTruncated, moov.end == size else {
                throw BoxError.truncatedPayload(type: "moov")
            }
            guard moov.size <= UInt64(64 << 20) else { throw BoxError.tooLarge(type: "moov", size: moov.size) }
            ftyp = first.offset..<first.end
            self.moov = moov.offset..<moov.end
        }
    }

    /// `moov` (a whole movie box) with every chunk offset (`stco`, `co64`) moved by `delta`; an
    /// `stco` whose offsets no longer fit 32 bits becomes a `co64`, and the boxes holding it grow.
    static func shifted(_ moov: [UInt8], by delta: UInt64) throws(BoxError) -> [UInt8] {
        guard let root = try ByteBox.children(of: moov, in: 0..<moov.count).first, root.type == "moov" else {
            throw BoxError.truncatedPayload(type: "moov")
        }
        // Usually every offset still fits its field: the same bytes with the offsets rewritten in
        // place (a long clip's index is megabytes; rebuilding it box by box costs 10 ms).
        let tables = try chunkOffsetTables(in: root, of: moov)
        var fits = true
        for table in tables where table.type == "stco" {
            let (count, start) = try table.entries(in: moov)
            for index in 0..<count where UInt64(ByteBox.u32(moov, start + index * 4)) + delta > UInt64(UInt32.max) {
                fits = false
                break
            }
        }
        guard fits else { return try rebuilt(root, in: moov, delta: delta) }
        var bytes = moov
        for table in tables {
            let (count, start) = try table.entries(in: moov)
            let width = table.type == "co64" ? 8 : 4
            try bytes.withUnsafeMutableBufferPointer {
                (buffer: inout UnsafeMutableBufferPointer<UInt8>) throws(BoxError) in
                for index in 0..<count {
                    let at = start + index * width
                    var value: UInt64 = 0
                    for byte in buffer[at..<at + width] { value = value << 8 | UInt64(byte) }
                    let (moved, overflow) = value.addingReportingOverflow(delta)
                    if overflow { throw BoxError.tooLarge(type: table.type, size: value) }
                    for offset in 0..<width {
                        buffer[at + offset] = UInt8(truncatingIfNeeded: moved >> UInt64(8 * (width - 1 - offset)))
                    }
                }
            }
        }
        return bytes
    }

    /// The `stco` and `co64` boxes inside `box` (a `moov`), through the ``containers``.
    private static func chunkOffsetTables(in box: ByteBox, of bytes: [UInt8]) throws(BoxError) -> [ByteBox] {
        var found: [ByteBox] = []
        for child in try ByteBox.children(of: bytes, in: box.payloadStart..<box.end) {
            if containers.contains(child.type) {
                found += try chunkOffsetTables(in: child, of: bytes)
            } else if child.type == "stco" || child.type == "co64" {
                found.append(child)
            }
        }
        return found
    }

    /// The boxes on the way from `moov` to a track's chunk offsets.
    private static let containers: Set<FourCC> = ["moov", "trak", "mdia", "minf", "stbl"]

    private static func rebuilt(_ box: ByteBox, in bytes: [UInt8], delta: UInt64) throws(BoxError) -> [UInt8] {
        switch box.type {
        case let type where containers.contains(type):
            var payload: [UInt8] = []
            for child in try ByteBox.children(of: bytes, in: box.payloadStart..<box.end) {
                payload += try rebuilt(child, in: bytes, delta: delta)
            }
            return try Self.box(type, payload)
        case "stco":
            let offsets = try entries(of: box, in: bytes, width: 4)
            let moved = try offsets.map { (offset: UInt64) throws(BoxError) -> UInt64 in
                let (sum, overflow) = offset.addingReportingOverflow(delta)
                if overflow { throw BoxError.tooLarge(type: "stco", size: offset) }
                return sum
            }
            let wide = moved.contains { $0 > UInt64(UInt32.max) }
            return try table(
                wide ? "co64" : "stco", flags: Array(bytes[box.payloadStart..<box.payloadStart + 4]),
                moved, width: wide ? 8 : 4)
        case "co64":
            let moved = try entries(of: box, in: bytes, width: 8).map { (offset: UInt64) throws(BoxError) -> UInt64 in
                let (sum, overflow) = offset.addingReportingOverflow(delta)
                if overflow { throw BoxError.tooLarge(type: "co64", size: offset) }
                return sum
            }
            return try table("co64", flags: Array(bytes[box.payloadStart..<box.payloadStart + 4]), moved, width: 8)
        default:
            return Array(bytes[box.start..<box.end])
        }
    }

    /// The entries of a chunk offset table (version and flags, a count, then `width`-byte offsets).
    private static func entries(of box: ByteBox, in bytes: [UInt8], width: Int) throws(BoxError) -> [UInt64] {
        let (count, start) = try box.entries(in: bytes)
        return (0..<count).map { index in
            let at = start + index * width
            return width == 8 ? ByteBox.u64(bytes, at) : UInt64(ByteBox.u32(bytes, at))
        }
    }

    private static func table(_ type: FourCC, flags: [UInt8], _ offsets: [UInt64], width: Int) throws(BoxError)
        -> [UInt8]
    {
        var payload = flags + u32(UInt32(offsets.count))
        payload.reserveCapacity(payload.count + offsets.count * width)
        for offset in offsets { payload += width == 8 ? u64(offset) : u32(UInt32(offset)) }
        return try box(type, payload)
    }

    private static func box(_ type: FourCC, _ payload: [UInt8]) throws(BoxError) -> [UInt8] {
        guard payload.count + 8 <= Int(UInt32.max) else {
            throw BoxError.tooLarge(type: type, size: UInt64(payload.count))
        }
        return u32(UInt32(payload.count + 8)) + u32(type.rawValue) + payload
    }

    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    static func roundUp(_ value: UInt64, to block: UInt64) -> UInt64 { (value + block - 1) / block * block }

    /// Moves the bytes of `range` up by `distance`, from the end down, so no byte is overwritten
    /// before it is read.
    private static func moveUp(_ descriptor: Int32, range: Range<UInt64>, by distance: UInt64, path: String)
        throws(ConvertError)
    {
        let chunk: UInt64 = 4 << 20
        var end = range.upperBound
        while end > range.lowerBound {
            let start = end - min(chunk, end - range.lowerBound)
            let bytes = try BoxSource.readAll(descriptor, at: start, count: Int(end - start), path: path)
            try write(bytes, at: start + distance, descriptor: descriptor, path: path)
            end = start
        }
    }

    private static func write(_ bytes: [UInt8], at offset: UInt64, descriptor: Int32, path: String)
        throws(ConvertError)
    {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(errno, action: "write", path: path)
            }
            done += written
        }
    }
}

extension FastStart {
    /// Reads boxes from a descriptor the caller owns (``FileByteSource`` opens its own, read only).
    struct BoxSource: ByteSource {
        let descriptor: Int32
        let size: UInt64

        func read(at offset: UInt64, count: Int) throws(BoxError) -> [UInt8] {
            try FileByteSource.read(descriptor, size: size, at: offset, count: count)
        }

        /// Exactly `count` bytes at `offset`.
        static func readAll(_ descriptor: Int32, at offset: UInt64, count: Int, path: String) throws(ConvertError)
            -> [UInt8]
        {
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let got = bytes.withUnsafeMutableBytes { raw in
                    pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                }
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { throw .fileSystem(got < 0 ? errno : EIO, action: "read back", path: path) }
                done += got
            }
            return bytes
        }
    }
}

extension ByteBox {
    /// A chunk offset table's entry count and where its first entry is (after version, flags and
    /// the count), checked to fit the box: 4-byte entries in `stco`, 8-byte in `co64`.
    fileprivate func entries(in bytes: [UInt8]) throws(BoxError) -> (count: Int, start: Int) {
        let width = type == "co64" ? 8 : 4
        guard payloadStart + 8 <= end else { throw BoxError.truncatedPayload(type: type) }
        let count = Int(ByteBox.u32(bytes, payloadStart + 4))
        guard count <= (end - payloadStart - 8) / width else { throw BoxError.truncatedPayload(type: type) }
        return (count, payloadStart + 8)
    }
}
