/// A YCbCr 4:2:0 picture in three planes, owned here (allocated in `init`, freed in `deinit`): the
/// layout both HEVC and JPEG code in, so a HEIC's pixels can go to the JPEG encoder without a trip
/// through RGB, and the one ``rgbBitmap(matrix:fullRange:icc:)`` converts from for other outputs.
///
/// Samples are one byte at 8 bits and two (native-endian, in the low bits) at 9 to 16 bits.
///
/// The luma plane is padded to even dimensions, its last column and row repeated: TurboJPEG reads
/// a 4:2:0 luma plane of `tjPlaneWidth` × `tjPlaneHeight`, which round an odd size up.
///
/// `@unchecked Sendable`: the planes are written only by ``paste(_:x:y:mapping:)``, which several
/// threads call at once for disjoint tiles of a grid, and read only after those writes have all
/// finished.
package final class YCbCr420Image: @unchecked Sendable {
    package let width: Int
    package let height: Int
    /// Bits per sample (8 to 16).
    package let bitDepth: Int
    /// Width and height of the chroma planes: half the luma size, rounded up.
    package var chromaWidth: Int { (width + 1) / 2 }
    package var chromaHeight: Int { (height + 1) / 2 }
    /// The luma plane's row length and row count: the size rounded up to even.
    private var lumaStride: Int { chromaWidth * 2 }
    private var lumaRows: Int { chromaHeight * 2 }
    private var sampleBytes: Int { bitDepth > 8 ? 2 : 1 }
    /// The bytes the luma plane holds, and each chroma plane: what a C call reading the planes
    /// lent by ``withPlanes(_:)`` is told, so it can check its rows against them.
    package let lumaByteCount: Int
    package let chromaByteCount: Int
    private let luma: UnsafeMutableRawPointer
    private let cb: UnsafeMutableRawPointer
    private let cr: UnsafeMutableRawPointer

    /// An uninitialised picture; every pixel must be written before the planes are read.
    package init(width: Int, height: Int, bitDepth: Int = 8) {
        precondition(width > 0 && height > 0, "a picture has pixels")
        precondition((8...16).contains(bitDepth), "8 to 16 bits per sample")
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        let bytes = bitDepth > 8 ? 2 : 1
        lumaByteCount = ((width + 1) / 2 * 2) * ((height + 1) / 2 * 2) * bytes
        chromaByteCount = ((width + 1) / 2) * ((height + 1) / 2) * bytes
        luma = .allocate(byteCount: lumaByteCount, alignment: 16)
        cb = .allocate(byteCount: chromaByteCount, alignment: 16)
        cr = .allocate(byteCount: chromaByteCount, alignment: 16)
    }

    deinit {
        luma.deallocate()
        cb.deallocate()
        cr.deallocate()
    }

    /// Copies the part of `picture` that falls inside this image, with its top-left corner at
    /// (`x`, `y`): a grid tile that overhangs the picture is cropped here. `x` and `y` must be
    /// even (a tile's chroma starts on a whole chroma sample). With a `mapping` (into an 8-bit
    /// image) each sample goes through its tables; without one the picture must have this image's
    /// sample size and is copied as it is. A 4:2:2 picture's chroma rows are averaged in pairs
    /// (what nearest upsampling to RGB and JPEG's 2×2 averaging give), before any mapping.
    func paste(_ picture: HEVCPicture, x: Int, y: Int, mapping: SampleMapping? = nil) {
        precondition(x >= 0 && y >= 0 && x % 2 == 0 && y % 2 == 0, "tiles start on even luma positions")
        precondition(mapping == nil ? (picture.bitDepth > 8) == (bitDepth > 8) : bitDepth == 8, "sample sizes agree")
        let targets = [
            (luma, lumaStride, height, x, y), (cb, chromaWidth, chromaHeight, x / 2, y / 2),
            (cr, chromaWidth, chromaHeight, x / 2, y / 2),
        ]
        let deep = picture.bitDepth > 8
        for (index, (plane, planeWidth, planeHeight, left, top)) in targets.enumerated() {
            let sourceWidth = index == 0 ? picture.width : (picture.width + 1) / 2
            let sourceHeight = index == 0 ? picture.height : (picture.height + 1) / 2
            // Source rows per target row: two for 4:2:2 chroma.
            let pairs = index > 0 && picture.chromaFullHeight
            let columns = min(sourceWidth, (index == 0 ? width : planeWidth) - left)
            let rows = min(sourceHeight, planeHeight - top)
            guard columns > 0, rows > 0 else { continue }
            let table = mapping.map { index == 0 ? $0.luma : $0.chroma }
            for row in 0..<rows {
                let target = plane + ((top + row) * planeWidth + left) * sampleBytes
                let first = pairs ? 2 * row : row
                let source = UnsafeRawPointer(picture.planes[index]) + first * picture.strides[index]
                if pairs {
                    let second =
                        UnsafeRawPointer(picture.planes[index]) + min(first + 1, picture.height - 1)
                        * picture.strides[index]
                    Self.average(source, second, deep: deep, count: columns, table: table, into: target)
                } else if let table {
                    Self.map(
                        source, deep: deep, count: columns, table: table,
                        into: target.assumingMemoryBound(to: UInt8.self))
                } else {
                    target.copyMemory(from: source, byteCount: columns * sampleBytes)
                }
            }
        }
    }

    private static func map(
        _ source: UnsafeRawPointer, deep: Bool, count: Int, table: [UInt8], into target: UnsafeMutablePointer<UInt8>
    ) {
        table.withUnsafeBufferPointer { lookup in
            let last = lookup.count - 1
            if deep {
                let samples = source.assumingMemoryBound(to: UInt16.self)
                for index in 0..<count { target[index] = lookup[min(Int(samples[index]), last)] }
            } else {
                let samples = source.assumingMemoryBound(to: UInt8.self)
                for index in 0..<count { target[index] = lookup[min(Int(samples[index]), last)] }
            }
        }
    }

    /// Writes the rounded mean of two rows of samples, through `table` when there is one (then
    /// into bytes), else in the source's own sample size.
    private static func average(
        _ first: UnsafeRawPointer, _ second: UnsafeRawPointer, deep: Bool, count: Int, table: [UInt8]?,
        into target: UnsafeMutableRawPointer
    ) {
        func mean(_ index: Int) -> Int {
            deep
                ? (Int(first.load(fromByteOffset: 2 * index, as: UInt16.self))
                    + Int(second.load(fromByteOffset: 2 * index, as: UInt16.self)) + 1) >> 1
                : (Int(first.load(fromByteOffset: index, as: UInt8.self))
                    + Int(second.load(fromByteOffset: index, as: UInt8.self)) + 1) >> 1
        }
        if let table {
            table.withUnsafeBufferPointer { lookup in
                let last = lookup.count - 1
                let bytes = target.assumingMemoryBound(to: UInt8.self)
                for index in 0..<count { bytes[index] = lookup[min(mean(index), last)] }
            }
        } else if deep {
            let words = target.assumingMemoryBound(to: UInt16.self)
            for index in 0..<count { words[index] = UInt16(mean(index)) }
        } else {
            let bytes = target.assumingMemoryBound(to: UInt8.self)
            for index in 0..<count { bytes[index] = UInt8(mean(index)) }
        }
    }

    /// Lends the planes (Y, Cb, Cr) of an 8-bit picture and their strides to `body`, the luma
    /// padding filled in first; they must not escape it.
    package func withPlanes<T, E: Error>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32]) throws(E) -> T
    ) throws(E) -> T {
        precondition(bitDepth == 8, "the byte planes of an 8-bit picture")
        let luma = self.luma.assumingMemoryBound(to: UInt8.self)
        if lumaStride > width {
            for row in 0..<height { luma[row * lumaStride + width] = luma[row * lumaStride + width - 1] }
        }
        if lumaRows > height {
            (luma + height * lumaStride).update(from: luma + (height - 1) * lumaStride, count: lumaStride)
        }
        return try body(
            [
                UnsafePointer(luma), UnsafePointer(cb.assumingMemoryBound(to: UInt8.self)),
                UnsafePointer(cr.assumingMemoryBound(to: UInt8.self)),
            ],
            [Int32(lumaStride), Int32(chromaWidth), Int32(chromaWidth)])
    }

    /// Lends the raw planes and their strides in samples (Y, Cb, Cr) to `body`, for the RGB
    /// conversion; they must not escape it.
    func withRawPlanes<T>(_ body: (_ planes: [UnsafeRawPointer], _ strides: [Int]) -> T) -> T {
        body(
            [UnsafeRawPointer(luma), UnsafeRawPointer(cb), UnsafeRawPointer(cr)],
            [lumaStride, chromaWidth, chromaWidth])
    }

    /// A matrix ``convertToBT601(_:)`` re-expresses in BT.601: the chroma mix from its YCbCr
    /// through RGB to BT.601's, in 1/65536 units, from H.273's Kr and Kb.
    struct MatrixChange: Sendable, Equatable {
        let yFromCb: Int, yFromCr: Int
        let cbFromCb: Int, cbFromCr: Int
        let crFromCb: Int, crFromCr: Int

        /// The change from H.273 matrix `code`, for BT.709 (1) and BT.2020 non-constant
        /// luminance (9); nil for any other (BT.601's own codes need none).
        package init?(from code: Int) {
            switch code {
            // BT.709 (0.2126, 0.0722): 0.10163, 0.19611; 0.98991, −0.11069; −0.07247, 0.98338.
            case 1:
                (yFromCb, yFromCr, cbFromCb, cbFromCr, crFromCb, crFromCr) = (
                    6_660, 12_852, 64_875, -7_254, -4_749, 64_447
                )
            // BT.2020 (0.2627, 0.0593): 0.11789, 0.10552; 0.99521, −0.05956; −0.08409, 0.97651.
            case 9:
                (yFromCb, yFromCr, cbFromCb, cbFromCr, crFromCb, crFromCr) = (
                    7_726, 6_915, 65_222, -3_903, -5_511, 63_997
                )
            default: return nil
            }
        }
    }

    /// Re-expresses 8-bit full-range YCbCr of another matrix (BT.709, BT.2020) in BT.601 (JPEG's
    /// matrix) on the planes: each chroma pair is mixed linearly, and each luma sample gets the
    /// luma difference of its own chroma sample. That is what decoding to RGB with nearest chroma
    /// (libheif's upsampling) and JPEG's RGB → YCbCr with averaged chroma give, without the RGB
    /// picture.
    func convertToBT601(_ change: MatrixChange) {
        precondition(bitDepth == 8, "8-bit planes")
        let luma = self.luma.assumingMemoryBound(to: UInt8.self)
        let cb = self.cb.assumingMemoryBound(to: UInt8.self)
        let cr = self.cr.assumingMemoryBound(to: UInt8.self)
        let (yFromCb, yFromCr) = (change.yFromCb, change.yFromCr)
        let (cbFromCb, cbFromCr) = (change.cbFromCb, change.cbFromCr)
        let (crFromCb, crFromCr) = (change.crFromCb, change.crFromCr)
        func clamp(_ value: Int) -> UInt8 { UInt8(max(0, min(255, value))) }
        for cy in 0..<chromaHeight {
            for cx in 0..<chromaWidth {
                let index = cy * chromaWidth + cx
                let u = Int(cb[index]) - 128
                let v = Int(cr[index]) - 128
                let delta = (yFromCb * u + yFromCr * v + 32_768) >> 16
                cb[index] = clamp(128 + (cbFromCb * u + cbFromCr * v + 32_768) >> 16)
                cr[index] = clamp(128 + (crFromCb * u + crFromCr * v + 32_768) >> 16)
                guard delta != 0 else { continue }
                for y in (2 * cy)..<min(2 * cy + 2, height) {
                    let row = luma + y * lumaStride
                    for x in (2 * cx)..<min(2 * cx + 2, width) { row[x] = clamp(Int(row[x]) + delta) }
                }
            }
        }
    }

    /// One of HEIF's transformative properties: `irot` (anticlockwise quarter turns) or `imir`.
    enum Transform: Equatable, Sendable {
        case rotate(quarterTurns: Int)
        /// `topToBottom` swaps top and bottom, otherwise left and right.
        case mirror(topToBottom: Bool)
    }

    /// The picture after `transform`, each plane moved on its own (as libheif does).
    func applying(_ transform: Transform) -> YCbCr420Image {
        let turns: Int
        switch transform {
        case .rotate(let quarterTurns): turns = ((quarterTurns % 4) + 4) % 4
        case .mirror: turns = 0
        }
        if case .rotate = transform, turns == 0 { return self }
        let swapped = turns % 2 == 1
        let result = YCbCr420Image(
            width: swapped ? height : width, height: swapped ? width : height, bitDepth: bitDepth)
        let pairs = [
            (luma, result.luma, width, height, lumaStride, result.lumaStride),
            (cb, result.cb, chromaWidth, chromaHeight, chromaWidth, result.chromaWidth),
            (cr, result.cr, chromaWidth, chromaHeight, chromaWidth, result.chromaWidth),
        ]
        for (source, target, sourceWidth, sourceHeight, sourceStride, targetStride) in pairs {
            if sampleBytes == 1 {
                Self.move(
                    Plane(
                        pixels: source.assumingMemoryBound(to: UInt8.self), width: sourceWidth, height: sourceHeight,
                        stride: sourceStride),
                    into: target.assumingMemoryBound(to: UInt8.self), stride: targetStride, transform, turns: turns)
            } else {
                Self.move(
                    Plane(
                        pixels: source.assumingMemoryBound(to: UInt16.self), width: sourceWidth, height: sourceHeight,
                        stride: sourceStride),
                    into: target.assumingMemoryBound(to: UInt16.self), stride: targetStride, transform, turns: turns)
            }
        }
        return result
    }

    private static func move<Sample>(
        _ from: Plane<Sample>, into target: UnsafeMutablePointer<Sample>, stride: Int, _ transform: Transform,
        turns: Int
    ) {
        switch transform {
        case .rotate: rotate(from, into: target, stride: stride, quarterTurns: turns)
        case .mirror(let topToBottom): mirror(from, into: target, stride: stride, topToBottom: topToBottom)
        }
    }

    /// One plane of the picture and its geometry.
    private struct Plane<Sample> {
        var pixels: UnsafeMutablePointer<Sample>
        var width: Int
        var height: Int
        var stride: Int
    }

    /// Rotates a plane anticlockwise by 90°, 180° or 270°, in 64×64 blocks so that the column-wise
    /// side of a quarter turn stays in cache.
    private static func rotate<Sample>(
        _ source: Plane<Sample>, into target: UnsafeMutablePointer<Sample>, stride: Int, quarterTurns: Int
    ) {
        let (width, height) = (source.width, source.height)
        let block = 64
        for blockY in Swift.stride(from: 0, to: height, by: block) {
            for blockX in Swift.stride(from: 0, to: width, by: block) {
                for y in blockY..<min(blockY + block, height) {
                    let row = source.pixels + y * source.stride
                    for x in blockX..<min(blockX + block, width) {
                        // Where source (x, y) lands: a quarter turn anticlockwise sends the
                        // top-right corner to the top-left.
                        let (targetX, targetY): (Int, Int)
                        switch quarterTurns {
                        case 1: (targetX, targetY) = (y, width - 1 - x)
                        case 2: (targetX, targetY) = (width - 1 - x, height - 1 - y)
                        default: (targetX, targetY) = (height - 1 - y, x)
                        }
                        target[targetY * stride + targetX] = row[x]
                    }
                }
            }
        }
    }

    private static func mirror<Sample>(
        _ source: Plane<Sample>, into target: UnsafeMutablePointer<Sample>, stride: Int, topToBottom: Bool
    ) {
        let (width, height) = (source.width, source.height)
        for y in 0..<height {
            let row = source.pixels + y * source.stride
            if topToBottom {
                (target + (height - 1 - y) * stride).update(from: row, count: width)
            } else {
                let out = target + y * stride
                for x in 0..<width { out[width - 1 - x] = row[x] }
            }
        }
    }
}

/// Per-sample tables that turn a tile's samples into JPEG's: 8-bit, full range. A deeper sample
/// is rounded to 8 bits; a limited-range one is stretched (luma 16...235, chroma 16...240 scaled
/// by 2^(bits−8)) to the full range, each plane on its own, which is exact for one matrix.
struct SampleMapping: Sendable, Equatable {
    let luma: [UInt8]
    let chroma: [UInt8]

    /// The tables for samples of `bitDepth` bits in the given range; nil when there is nothing to
    /// do (8-bit full range).
    package init?(bitDepth: Int, fullRange: Bool) {
        guard bitDepth != 8 || !fullRange, (8...16).contains(bitDepth) else { return nil }
        let count = 1 << bitDepth
        let scale = Double(1 << (bitDepth - 8))
        func table(_ value: (Double) -> Double) -> [UInt8] {
            (0..<count).map { UInt8(max(0, min(255, value(Double($0)).rounded()))) }
        }
        if fullRange {
            // Rounded to 8 bits the way libheif reduces a deep sample (v / 2^(bits−8)).
            luma = table { $0 / scale }
            chroma = table { $0 / scale }
        } else {
            luma = table { ($0 - 16 * scale) * 255 / (219 * scale) }
            chroma = table { 128 + ($0 - 128 * scale) * 255 / (224 * scale) }
        }
    }
}
