/// An 8-bit YCbCr 4:2:0 picture in three planes, owned here (allocated in `init`, freed in
/// `deinit`): the layout both HEVC and JPEG code in, so a HEIC's pixels can go to the JPEG encoder
/// without a trip through RGB.
///
/// The luma plane is padded to even dimensions, its last column and row repeated: TurboJPEG reads
/// a 4:2:0 luma plane of `tjPlaneWidth` × `tjPlaneHeight`, which round an odd size up.
///
/// `@unchecked Sendable`: the planes are written only by ``paste(_:x:y:)``, which several threads
/// call at once for disjoint tiles of a grid, and read only after those writes have all finished.
package final class YCbCr420Image: @unchecked Sendable {
    package let width: Int
    package let height: Int
    /// Width and height of the chroma planes: half the luma size, rounded up.
    package var chromaWidth: Int { (width + 1) / 2 }
    package var chromaHeight: Int { (height + 1) / 2 }
    /// The luma plane's row length and row count: the size rounded up to even.
    private var lumaStride: Int { chromaWidth * 2 }
    private var lumaRows: Int { chromaHeight * 2 }
    private let luma: UnsafeMutablePointer<UInt8>
    private let cb: UnsafeMutablePointer<UInt8>
    private let cr: UnsafeMutablePointer<UInt8>

    /// An uninitialised picture; every pixel must be written before the planes are read.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a picture has pixels")
        self.width = width
        self.height = height
        luma = .allocate(capacity: ((width + 1) / 2 * 2) * ((height + 1) / 2 * 2))
        let chromaCount = ((width + 1) / 2) * ((height + 1) / 2)
        cb = .allocate(capacity: chromaCount)
        cr = .allocate(capacity: chromaCount)
    }

    deinit {
        luma.deallocate()
        cb.deallocate()
        cr.deallocate()
    }

    /// Copies the part of `picture` that falls inside this image, with its top-left corner at
    /// (`x`, `y`). `x` and `y` must be even (a tile's chroma starts on a whole chroma sample).
    package func paste(_ picture: HEVCPicture, x: Int, y: Int) {
        precondition(x >= 0 && y >= 0 && x % 2 == 0 && y % 2 == 0, "tiles start on even luma positions")
        let targets = [(luma, lumaStride, height, x, y), (cb, chromaWidth, chromaHeight, x / 2, y / 2), (cr, chromaWidth, chromaHeight, x / 2, y / 2)]
        for (index, (plane, planeWidth, planeHeight, left, top)) in targets.enumerated() {
            let sourceWidth = index == 0 ? picture.width : (picture.width + 1) / 2
            let sourceHeight = index == 0 ? picture.height : (picture.height + 1) / 2
            let columns = min(sourceWidth, (index == 0 ? width : planeWidth) - left)
            let rows = min(sourceHeight, planeHeight - top)
            guard columns > 0, rows > 0 else { continue }
            for row in 0..<rows {
                (plane + (top + row) * planeWidth + left).update(
                    from: picture.planes[index] + row * picture.strides[index], count: columns)
            }
        }
    }

    /// Lends the planes (Y, Cb, Cr) and their strides to `body`, the luma padding filled in
    /// first; they must not escape it.
    package func withPlanes<T, E: Error>(
        _ body: (_ planes: [UnsafePointer<UInt8>], _ strides: [Int32]) throws(E) -> T
    ) throws(E) -> T {
        if lumaStride > width {
            for row in 0..<height { luma[row * lumaStride + width] = luma[row * lumaStride + width - 1] }
        }
        if lumaRows > height {
            (luma + height * lumaStride).update(from: luma + (height - 1) * lumaStride, count: lumaStride)
        }
        return try body(
            [UnsafePointer(luma), UnsafePointer(cb), UnsafePointer(cr)],
            [Int32(lumaStride), Int32(chromaWidth), Int32(chromaWidth)])
    }

    /// One of HEIF's transformative properties: `irot` (anticlockwise quarter turns) or `imir`.
    package enum Transform: Equatable {
        case rotate(quarterTurns: Int)
        /// `topToBottom` swaps top and bottom, otherwise left and right.
        case mirror(topToBottom: Bool)
    }

    /// The picture after `transform`, each plane moved on its own (as libheif does).
    package func applying(_ transform: Transform) -> YCbCr420Image {
        let turns: Int
        switch transform {
        case .rotate(let quarterTurns): turns = ((quarterTurns % 4) + 4) % 4
        case .mirror: turns = 0
        }
        if case .rotate = transform, turns == 0 { return self }
        let swapped = turns % 2 == 1
        let result = YCbCr420Image(width: swapped ? height : width, height: swapped ? width : height)
        let pairs = [(luma, result.luma, width, height, lumaStride, result.lumaStride), (cb, result.cb, chromaWidth, chromaHeight, chromaWidth, result.chromaWidth),
            (cr, result.cr, chromaWidth, chromaHeight, chromaWidth, result.chromaWidth),
        ]
        for (source, target, sourceWidth, sourceHeight, sourceStride, targetStride) in pairs {
            let from = Plane(pixels: source, width: sourceWidth, height: sourceHeight, stride: sourceStride)
            switch transform {
            case .rotate: Self.rotate(from, into: target, stride: targetStride, quarterTurns: turns)
            case .mirror(let topToBottom): Self.mirror(from, into: target, stride: targetStride, topToBottom: topToBottom)
            }
        }
        return result
    }

    /// One plane of the picture and its geometry.
    private struct Plane {
        package var pixels: UnsafeMutablePointer<UInt8>
        package var width: Int
        package var height: Int
        package var stride: Int
    }

    /// Rotates a plane anticlockwise by 90°, 180° or 270°, in 64×64 blocks so that the column-wise
    /// side of a quarter turn stays in cache.
    private static func rotate(_ source: Plane, into target: UnsafeMutablePointer<UInt8>, stride: Int, quarterTurns: Int) {
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

    private static func mirror(_ source: Plane, into target: UnsafeMutablePointer<UInt8>, stride: Int, topToBottom: Bool) {
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
