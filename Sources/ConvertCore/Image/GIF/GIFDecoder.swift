/// Reads the first frame of a GIF: a small LZW decoder in Swift, so a still GIF needs no FFmpeg
/// decoder set-up. Every length is checked against the data; damaged files throw `.input`.
///
/// Only the first frame is decoded (a GIF converts to a still photo): the frames after it are
/// never read, so an animation of thousands of frames costs what its first one does, the
/// picture of its logical screen.
enum GIFDecoder {
    /// Where the first image of a GIF is, and what it is drawn on.
    struct FirstImage {
        /// The picture: the logical screen, grown to hold the first frame if it sticks out.
        var canvasWidth: Int
        var canvasHeight: Int
        var left: Int, top: Int, width: Int, height: Int
        var interlaced: Bool
        var palette: [UInt8]
        var transparentIndex: Int?
        /// The offset of the LZW minimum code size byte.
        var dataOffset: Int
    }

    /// Finds the first image descriptor (palettes and extensions before it are walked, nothing is
    /// decoded): enough to know the picture's size, for `info` and a batch's memory cost.
    static func firstImage(_ data: [UInt8], path: String) throws(ConvertError) -> FirstImage {
        let damaged = ConvertError(.input, code: .inputCorrupt, message: "\(path) is damaged or not a GIF image.", path: path)
        guard data.count >= 13 else { throw damaged }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        let screenWidth = u16(6), screenHeight = u16(8)
        let packed = data[10]
        var offset = 13
        var globalPalette: [UInt8] = []
        if packed & 0x80 != 0 {
            let size = 3 << (Int(packed & 7) + 1)
            guard offset + size <= data.count else { throw damaged }
            globalPalette = Array(data[offset..<(offset + size)])
            offset += size
        }
        var transparentIndex: Int?
        while offset < data.count {
            let introducer = data[offset]
            offset += 1
            if introducer == 0x21 {
                guard offset < data.count else { throw damaged }
                let label = data[offset]
                offset += 1
                if label == 0xF9, offset + 5 <= data.count, data[offset] == 4 {
                    transparentIndex = data[offset + 1] & 1 != 0 ? Int(data[offset + 4]) : nil
                }
                while offset < data.count, data[offset] != 0 { offset += Int(data[offset]) + 1 }
                offset += 1
            } else if introducer == 0x2C {
                guard offset + 9 <= data.count else { throw damaged }
                let left = u16(offset), top = u16(offset + 2), width = u16(offset + 4), height = u16(offset + 6)
                let flags = data[offset + 8]
                offset += 9
                var palette = globalPalette
                if flags & 0x80 != 0 {
                    let size = 3 << (Int(flags & 7) + 1)
                    guard offset + size <= data.count else { throw damaged }
                    palette = Array(data[offset..<(offset + size)])
                    offset += size
                }
                guard width > 0, height > 0, offset < data.count else { throw damaged }
                return FirstImage(
                    canvasWidth: max(screenWidth, left + width), canvasHeight: max(screenHeight, top + height),
                    left: left, top: top, width: width, height: height, interlaced: flags & 0x40 != 0,
                    palette: palette, transparentIndex: transparentIndex, dataOffset: offset)
            } else {
                break
            }
        }
        throw damaged
    }

    /// The first frame composited onto the logical screen, as 8-bit RGBA (transparent where the
    /// frame does not cover the screen or uses its transparent index). A picture over `maxPixels`
    /// is refused as such (`input.too-many-pixels`) before anything is allocated for it.
    package static func firstFrame(_ data: [UInt8], maxPixels: Int, path: String) throws(ConvertError) -> Bitmap {
        let damaged = ConvertError(.input, code: .inputCorrupt, message: "\(path) is damaged or not a GIF image.", path: path)
        let image = try firstImage(data, path: path)
        let canvasWidth = image.canvasWidth, canvasHeight = image.canvasHeight
        try PixelLimit.check(width: canvasWidth, height: canvasHeight, limit: maxPixels, path: path)
        var offset = image.dataOffset
        let minimumCodeSize = Int(data[offset])
        offset += 1
        guard (1...11).contains(minimumCodeSize) else { throw damaged }
        var compressed: [UInt8] = []
        while offset < data.count, data[offset] != 0 {
            let length = Int(data[offset])
            guard offset + 1 + length <= data.count else { throw damaged }
            compressed += data[(offset + 1)..<(offset + 1 + length)]
            offset += 1 + length
        }
        let (left, top, width, height) = (image.left, image.top, image.width, image.height)
        guard let indices = lzw(compressed, minimumCodeSize: minimumCodeSize, count: width * height) else { throw damaged }
        let rows = image.interlaced ? interlacedRows(height) : Array(0..<height)
        let palette = image.palette
        var pixels = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * 4)
        for (sourceRow, row) in rows.enumerated() {
            for x in 0..<width {
                let index = Int(indices[sourceRow * width + x])
                guard index != image.transparentIndex, index * 3 + 2 < palette.count else { continue }
                let target = ((top + row) * canvasWidth + left + x) * 4
                pixels[target] = palette[index * 3]
                pixels[target + 1] = palette[index * 3 + 1]
                pixels[target + 2] = palette[index * 3 + 2]
                pixels[target + 3] = 255
            }
        }
        return Bitmap(width: canvasWidth, height: canvasHeight, channels: 4, samples: .eight(pixels), sourceBitDepth: 8)
    }

    /// Row order of an interlaced image: passes of every 8th row from 0, 8th from 4, 4th from 2, 2nd from 1.
    fileprivate static func interlacedRows(_ height: Int) -> [Int] {
        stride(from: 0, to: height, by: 8).map { $0 } + stride(from: 4, to: height, by: 8).map { $0 }
            + stride(from: 2, to: height, by: 4).map { $0 } + stride(from: 1, to: height, by: 2).map { $0 }
    }

    /// Decodes GIF's variable-width LZW into `count` palette indices (missing ones are 0); nil on
    /// an invalid code.
    fileprivate static func lzw(_ data: [UInt8], minimumCodeSize: Int, count: Int) -> [UInt8]? {
        let clear = 1 << minimumCodeSize, end = clear + 1
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
        var bitBuffer = 0, bitCount = 0, position = 0
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
                guard position < data.count else { return output + [UInt8](repeating: 0, count: count - output.count) }
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
        if output.count < count { output += [UInt8](repeating: 0, count: count - output.count) }
        return Array(output.prefix(count))
    }
}
