/// Reads GIFs: a small LZW decoder and block walker in Swift, so a GIF needs no FFmpeg decoder
/// set-up. Every length is checked against the data; damaged files throw `.input`.
///
/// ``GIFAnimation`` composites the frames; this type walks the blocks and decodes one image's
/// palette indices.
enum GIFDecoder {
    /// One image of a GIF as its blocks describe it, nothing decoded.
    struct ImageBlock {
        var left: Int, top: Int, width: Int, height: Int
        var interlaced: Bool
        var palette: [UInt8]
        var transparentIndex: Int?
        /// How long the frame shows, in hundredths of a second, as stored.
        var delay: Int
        /// What happens to the frame's area before the next one: 0–1 left, 2 cleared, 3 restored.
        var disposal: Int
        /// The offset of the LZW minimum code size byte.
        var dataOffset: Int
        /// Whether the file ends inside this image's data (the last image of a file cut short):
        /// what its data holds is decoded, the rest of it is left as the canvas was.
        var truncated = false
    }

    /// The logical screen and every image found, in order. `complete` is false when the walk
    /// stopped at damage (a file cut short) after at least one image (the last of them
    /// ``ImageBlock/truncated`` when the file ends inside its data).
    struct Layout {
        var screenWidth: Int
        var screenHeight: Int
        var images: [ImageBlock]
        var complete: Bool
    }

    private struct Damage: Error {}

    /// Walks the blocks of `data` (palettes and extensions read, no image decoded). Throws when
    /// not even the start of one image's data is there; damage after that ends the walk.
    static func layout(_ data: [UInt8], path: String) throws(ConvertError) -> Layout {
        let damaged = ConvertError(code: .inputCorrupt, message: "\(path) is damaged or not a GIF image.", path: path)
        guard data.count >= 13 else { throw damaged }
        let packed = data[10]
        var offset = 13
        var globalPalette: [UInt8] = []
        if packed & 0x80 != 0 {
            let size = 3 << (Int(packed & 7) + 1)
            guard offset + size <= data.count else { throw damaged }
            globalPalette = Array(data[offset..<(offset + size)])
            offset += size
        }
        var layout = Layout(screenWidth: u16(data, 6), screenHeight: u16(data, 8), images: [], complete: true)
        do {
            try walk(data, from: offset, globalPalette: globalPalette, into: &layout.images)
        } catch {
            layout.complete = false
        }
        guard !layout.images.isEmpty else { throw damaged }
        return layout
    }

    private static func u16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }

    /// Appends each image block from `offset` on to `images`, until the trailer (or the end).
    private static func walk(_ data: [UInt8], from start: Int, globalPalette: [UInt8], into images: inout [ImageBlock])
        throws(Damage)
    {
        var offset = start
        var control: (transparent: Int?, delay: Int, disposal: Int) = (nil, 0, 0)
        while offset < data.count {
            let introducer = data[offset]
            offset += 1
            if introducer == 0x21 {
                guard offset < data.count else { throw Damage() }
                let label = data[offset]
                offset += 1
                if label == 0xF9, offset + 5 <= data.count, data[offset] == 4 {
                    let flags = data[offset + 1]
                    control = (flags & 1 != 0 ? Int(data[offset + 4]) : nil, u16(data, offset + 2), Int(flags >> 2) & 7)
                }
                offset = try skipSubBlocks(data, from: offset)
            } else if introducer == 0x2C {
                guard offset + 9 <= data.count else { throw Damage() }
                var image = ImageBlock(
                    left: u16(data, offset), top: u16(data, offset + 2), width: u16(data, offset + 4),
                    height: u16(data, offset + 6),
                    interlaced: data[offset + 8] & 0x40 != 0, palette: globalPalette,
                    transparentIndex: control.transparent,
                    delay: control.delay, disposal: control.disposal, dataOffset: 0)
                let flags = data[offset + 8]
                offset += 9
                if flags & 0x80 != 0 {
                    let size = 3 << (Int(flags & 7) + 1)
                    guard offset + size <= data.count else { throw Damage() }
                    image.palette = Array(data[offset..<(offset + size)])
                    offset += size
                }
                guard image.width > 0, image.height > 0, offset < data.count else { throw Damage() }
                image.dataOffset = offset
                do {
                    offset = try skipSubBlocks(data, from: offset + 1)
                } catch {
                    // The file ends inside the image's data: its rows so far are kept, as giflib
                    // hands them over before its read fails and every viewer shows them.
                    image.truncated = true
                    images.append(image)
                    throw error
                }
                images.append(image)
                control = (nil, 0, 0)
            } else {
                // The trailer (0x3B), or bytes that are not a block: the end of the pictures.
                return
            }
        }
    }

    /// The offset after the data sub-blocks starting at `offset` and their terminator.
    private static func skipSubBlocks(_ data: [UInt8], from start: Int) throws(Damage) -> Int {
        var offset = start
        while offset < data.count, data[offset] != 0 { offset += Int(data[offset]) + 1 }
        guard offset < data.count else { throw Damage() }
        return offset + 1
    }

    /// The palette indices of `image`, row by row in display order (interlacing undone), and
    /// how many of them its data held, in stored order; nil when its LZW data is invalid.
    /// Indices missing at the end of the data are 0. A last sub-block cut short gives the bytes
    /// it has.
    static func indices(_ data: [UInt8], of image: ImageBlock) -> (indices: [UInt8], decoded: Int)? {
        var offset = image.dataOffset
        let minimumCodeSize = Int(data[offset])
        offset += 1
        guard (1...11).contains(minimumCodeSize) else { return nil }
        var compressed: [UInt8] = []
        while offset < data.count, data[offset] != 0 {
            let length = Int(data[offset])
            compressed += data[(offset + 1)..<min(data.count, offset + 1 + length)]
            offset += 1 + length
        }
        let count = image.width * image.height
        guard let (stored, decoded) = lzw(compressed, minimumCodeSize: minimumCodeSize, count: count) else {
            return nil
        }
        guard image.interlaced else { return (stored, decoded) }
        var rows = [UInt8](repeating: 0, count: count)
        for (sourceRow, row) in interlacedRows(image.height).enumerated() {
            rows.replaceSubrange(
                row * image.width..<(row + 1) * image.width,
                with: stored[sourceRow * image.width..<(sourceRow + 1) * image.width])
        }
        return (rows, decoded)
    }

    /// Row order of an interlaced image: passes of every 8th row from 0, 8th from 4, 4th from 2,
    /// 2nd from 1 (the display row of each stored row, in stored order).
    static func interlacedRows(_ height: Int) -> [Int] {
        stride(from: 0, to: height, by: 8).map { $0 } + stride(from: 4, to: height, by: 8).map { $0 }
            + stride(from: 2, to: height, by: 4).map { $0 } + stride(from: 1, to: height, by: 2).map { $0 }
    }

    /// Decodes GIF's variable-width LZW into `count` palette indices (missing ones are 0) and
    /// the number decoded from the data; nil on an invalid code.
    private static func lzw(_ data: [UInt8], minimumCodeSize: Int, count: Int) -> ([UInt8], Int)? {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var prefix = [Int](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        var length = [Int](repeating: 0, count: 4096)
        for code in 0..<clear {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            length[code] = 1
        }
        var output = [UInt8]()
        output.reserveCapacity(count)
        var codeSize = minimumCodeSize + 1
        var next = end + 1
        var previous = -1
        var bitBuffer = 0
        var bitCount = 0
        var position = 0
        var scratch = [UInt8](repeating: 0, count: 4096)
        func emit(_ code: Int) {
            var c = code
            let n = length[code]
            var i = n - 1
            while c >= 0 && i >= 0 {
                scratch[i] = suffix[c]
                c = prefix[c]
                i -= 1
            }
            output.append(contentsOf: scratch[0..<n])
        }
        while output.count < count {
            while bitCount < codeSize {
                guard position < data.count else {
                    return (output + [UInt8](repeating: 0, count: count - output.count), output.count)
                }
                bitBuffer |= Int(data[position]) << bitCount
                bitCount += 8
                position += 1
            }
            let code = bitBuffer & ((1 << codeSize) - 1)
            bitBuffer >>= codeSize
            bitCount -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = end + 1
                previous = -1
                continue
            }
            if code == end { break }
            if previous < 0 {
                guard code < clear else { return nil }
                emit(code)
                previous = code
                continue
            }
            let newFirst: UInt8
            if code < next {
                emit(code)
                newFirst = first[code]
            } else if code == next {
                newFirst = first[previous]
                emit(previous)
                output.append(newFirst)
            } else {
                return nil
            }
            if next < 4096 {
                prefix[next] = previous
                suffix[next] = newFirst
                first[next] = first[previous]
                length[next] = length[previous] + 1
                next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        let decoded = min(output.count, count)
        if output.count < count { output += [UInt8](repeating: 0, count: count - output.count) }
        return (Array(output.prefix(count)), decoded)
    }
}
