import ConvertCore
import Dispatch

/// Tone maps decoded 10-bit HDR frames (`yuv420p10le`, BT.2020, PQ or HLG) straight to 8-bit
/// BT.709 `yuv420p` for the encoder, through a ``ToneMapTable``: no float RGB frames, no
/// swscale or zscale pass per frame.
///
/// Chroma siting: a 4:2:0 chroma sample stands for the luma at its own position. With *left*
/// siting (H.273 type 0, every phone; also what zimg assumes for unspecified) the sample is
/// co-sited with the even luma column and halfway between the two luma rows, so the luma it is
/// mapped with is the mean of those two; with *top-left* (type 2) it is the even column of the
/// upper row. Each luma pixel is mapped with the chroma at its position: its own sample on even
/// columns, the mean of the two neighbours on odd ones. The output keeps the input's siting.
///
/// Frames the table does not cover (other pixel formats, centre siting) are left to the float
/// chain: ``covers(_:)`` says which, and ``VideoLane`` keeps zscale for them.
final class LUTToneMapper {
    private let source: ToneMapDecision.Source
    private let path: String
    /// Built from the first frame (its side data sets the tone curve's peak), then kept for the clip.
    private var table: ToneMapTable?
    /// Rows are split among this many workers.
    private let workers: Int
    /// The output pictures, reused once the graph downstream releases them; replaced when the
    /// frame size changes.
    private var pool: OutputFramePool?

    init(source: ToneMapDecision.Source, path: String, workers: Int = 2) {
        self.source = source
        self.path = path
        self.workers = max(1, workers)
    }

    /// Whether the table can map `frame`: 10-bit 4:2:0 with left, top-left or unspecified siting.
    static func covers(_ frame: Frame) -> Bool {
        frame.pixelFormat == .yuv420p10le && siting(frame.chromaLocation) != nil && frame.width > 0 && frame.height > 0
    }

    /// Whether frames of this pixel format can be covered (decided before the first frame).
    static func covers(pixelFormat: PixelFormat) -> Bool { pixelFormat == .yuv420p10le }

    private static func siting(_ location: ChromaLocation) -> Siting? {
        switch location {
        case .left, .unspecified: return .left
        case .topLeft: return .topLeft
        default: return nil
        }
    }

    /// Maps `input` (which ``covers(_:)``) into `output`, a fresh `yuv420p` frame with the
    /// input's timing and BT.709 colour tags.
    func map(_ input: Frame, into output: Frame) throws(ConvertError) {
        let table: ToneMapTable
        if let built = self.table {
            table = built
        } else {
            table = try ToneMapTable.sampled(for: source, like: input, path: path)
            self.table = table
        }
        let (width, height) = (Int(input.width), Int(input.height))
        try outputPool(width: width, height: height).attach(to: output, propertiesOf: input, path: path)
        // HDR side data describes the source's light, not the SDR picture.
        output.markTonedToSDR()
        guard let siting = Self.siting(input.chromaLocation) else {
            preconditionFailure("map(_:into:) called for a frame the table does not cover")
        }
        input.withPlanes { source in
            output.withPlanes { target in
                render(Planes(source: source, target: target, width: width, height: height, siting: siting), table: table)
            }
        }
    }

    private func outputPool(width: Int, height: Int) throws(ConvertError) -> OutputFramePool {
        if let pool, pool.width == width, pool.height == height { return pool }
        let fresh = try OutputFramePool(width: width, height: height, path: path)
        pool = fresh
        return fresh
    }

    private func render(_ planes: Planes, table: ToneMapTable) {
        let workers = min(self.workers, planes.chromaHeight)
        table.luma.withUnsafeBufferPointer { luma in
            table.chroma.withUnsafeBufferPointer { chroma in
                let lookup = Lookup(lines: luma.baseAddress!, chroma: chroma.baseAddress!)
                let work: @Sendable (Int) -> Void = { worker in
                    let rows = planes.chromaHeight
                    for row in (rows * worker / workers)..<(rows * (worker + 1) / workers) {
                        planes.mapRows(chromaRow: row, lookup: lookup)
                    }
                }
                // Off the cooperative pool: the pump already runs on its own thread, and
                // Dispatch's workers are not Swift concurrency's.
                if workers == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: workers, execute: work) }
            }
        }
    }

    enum Siting: Sendable { case left, topLeft }
}

/// The table's storage, borrowed for one frame.
///
/// Luma is interpolated in 2D only (``ToneMapTable/luma`` is exact along Y'): the Cb, Cr square
/// of a chroma sample splits along its diagonal into two triangles, and the triangle's three
/// nodes and weights (``LumaCell``) serve every luma pixel that sees this chroma.
///
/// Chroma interpolation is tetrahedral: a cell's cube splits into six tetrahedra along its main
/// diagonal, and the one holding the point is picked by sorting the three fractions. The sort is
/// done with min/max and masks, not branches: fractions of neighbouring pixels are noise, so
/// branches on them would be mispredicted about half the time.
private struct Lookup: @unchecked Sendable {
    let lines: UnsafePointer<UInt16>
    let chroma: UnsafePointer<UInt16>

    static let n = ToneMapTable.nodes
    static let dy = n &* n, db = n, dr = 1
    /// The far corner's offset in a cell.
    static let far = dy &+ db &+ dr

    /// 16-bit table values to 8 bits: weights sum to 16, values are 8-bit × 256 and at most
    /// 255 × 256 (``ToneMapTable`` clamps them), so no clamp is needed here.
    @inline(__always)
    static func eight(_ sum: Int) -> UInt8 { UInt8(truncatingIfNeeded: (sum &+ 2048) >> 12) }

    /// The chroma half of a cell, shared by every luma pixel that sees this chroma: where the
    /// cell starts along Cb and Cr, and the two chroma fractions sorted (high ≥ low) with the
    /// offsets of their axes.
    struct ChromaCell {
        var base: Int
        var high: Int, low: Int
        var highOffset: Int, lowOffset: Int

        @inline(__always)
        init(cb: Int, cr: Int) {
            base = (cb >> 4) &* Lookup.n &+ (cr >> 4)
            let fb = cb & 15, fr = cr & 15
            let bHigh = fb >= fr
            high = bHigh ? fb : fr
            low = bHigh ? fr : fb
            highOffset = bHigh ? Lookup.db : Lookup.dr
            lowOffset = bHigh ? Lookup.dr : Lookup.db
        }
    }

    /// The tetrahedron for luma `y` in the cell `c`: its first node, the two middle nodes'
    /// offsets, and the sorted fractions f1 ≥ f2 ≥ f3 (the four weights are 16 − f1, f1 − f2,
    /// f2 − f3 and f3). The selects compile to conditional moves.
    @inline(__always)
    static func tetrahedron(_ y: Int, _ c: ChromaCell) -> (base: Int, a: Int, b: Int, f1: Int, f2: Int, f3: Int) {
        let fy = y & 15
        let base = (y >> 4) &* dy &+ c.base
        let aboveHigh = fy >= c.high, aboveLow = fy >= c.low
        // fy slots in above, between or below the sorted chroma pair.
        let f1 = aboveHigh ? fy : c.high
        let f3 = aboveLow ? c.low : fy
        let f2 = aboveHigh ? c.high : (aboveLow ? fy : c.low)
        let a = aboveHigh ? dy : c.highOffset
        let second = aboveHigh ? c.highOffset : (aboveLow ? dy : c.lowOffset)
        return (base, a, a &+ second, f1, f2, f3)
    }

    /// The luma half of a chroma sample, from its ``ChromaCell`` (the same square and sorted
    /// fractions): the first node's line, the middle node's offset from it (one Cb or one Cr
    /// step, whichever fraction is larger), and the three weights (sum 16).
    struct LumaCell {
        var line: Int, middle: Int
        var w0: Int, w1: Int, w2: Int

        static let cbStep = ToneMapTable.nodes &* ToneMapTable.codes, crStep = ToneMapTable.codes
        static let far = cbStep &+ crStep

        @inline(__always)
        init(_ cell: ChromaCell) {
            line = cell.base &* ToneMapTable.codes
            middle = cell.highOffset == Lookup.db ? LumaCell.cbStep : LumaCell.crStep
            w0 = 16 &- cell.high
            w1 = cell.high &- cell.low
            w2 = cell.low
        }
    }

    @inline(__always)
    func y(_ y: Int, _ cell: LumaCell) -> UInt8 {
        let p = lines + (cell.line &+ y)
        return Lookup.eight(Int(p[0]) &* cell.w0 &+ Int(p[cell.middle]) &* cell.w1 &+ Int(p[LumaCell.far]) &* cell.w2)
    }

    @inline(__always)
    func cbcr(_ y: Int, _ cell: ChromaCell) -> (UInt8, UInt8) {
        let t = Lookup.tetrahedron(y, cell)
        let p = chroma + 2 &* t.base
        let a = 2 &* t.a, b = 2 &* t.b, f = 2 &* Lookup.far
        let u0 = Int(p[0]), u1 = Int(p[a]), u2 = Int(p[b]), u3 = Int(p[f])
        let v0 = Int(p[1]), v1 = Int(p[a &+ 1]), v2 = Int(p[b &+ 1]), v3 = Int(p[f &+ 1])
        return (Lookup.eight(u0 &<< 4 &+ (u1 &- u0) &* t.f1 &+ (u2 &- u1) &* t.f2 &+ (u3 &- u2) &* t.f3),
                Lookup.eight(v0 &<< 4 &+ (v1 &- v0) &* t.f1 &+ (v2 &- v1) &* t.f2 &+ (v3 &- v2) &* t.f3))
    }
}

/// One frame's planes, in and out, with the row arithmetic of 4:2:0.
private struct Planes: @unchecked Sendable {
    let y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>
    let yStride: Int, cStride: Int
    let outY: UnsafeMutablePointer<UInt8>, outCb: UnsafeMutablePointer<UInt8>, outCr: UnsafeMutablePointer<UInt8>
    let outYStride: Int, outCStride: Int
    let width: Int, height: Int, chromaWidth: Int, chromaHeight: Int
    let siting: LUTToneMapper.Siting

    init(source: FramePlanes, target: FramePlanes, width: Int, height: Int, siting: LUTToneMapper.Siting) {
        y = UnsafePointer(source.base(0).assumingMemoryBound(to: UInt8.self))
        cb = UnsafePointer(source.base(1).assumingMemoryBound(to: UInt8.self))
        cr = UnsafePointer(source.base(2).assumingMemoryBound(to: UInt8.self))
        yStride = source.stride(0)
        cStride = source.stride(1)
        outY = target.base(0).assumingMemoryBound(to: UInt8.self)
        outCb = target.base(1).assumingMemoryBound(to: UInt8.self)
        outCr = target.base(2).assumingMemoryBound(to: UInt8.self)
        outYStride = target.stride(0)
        outCStride = target.stride(1)
        self.width = width
        self.height = height
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        self.siting = siting
    }

    @inline(__always)
    private func row16(_ base: UnsafePointer<UInt8>, _ stride: Int, _ row: Int) -> UnsafePointer<UInt16> {
        UnsafeRawPointer(base + row &* stride).assumingMemoryBound(to: UInt16.self)
    }

    /// Maps chroma row `j` and the one or two luma rows it covers, in one pass over the columns:
    /// each chroma sample's cell serves the two luma pixels on its column, and its own output.
    func mapRows(chromaRow j: Int, lookup: Lookup) {
        let top = 2 &* j, bottom = min(2 &* j &+ 1, height &- 1)
        let u = row16(cb, cStride, j), v = row16(cr, cStride, j)
        let upper = row16(y, yStride, top), lower = row16(y, yStride, bottom)
        let outUpper = outY + top &* outYStride, outLower = outY + bottom &* outYStride
        let outU = outCb + j &* outCStride, outV = outCr + j &* outCStride
        let last = chromaWidth &- 1
        let left = siting == .left
        var u0 = Int(u[0] & 0x3FF), v0 = Int(v[0] & 0x3FF)
        for i in 0..<chromaWidth {
            let even = 2 &* i, odd = even &+ 1
            let k = min(i &+ 1, last)
            let u1 = Int(u[k] & 0x3FF), v1 = Int(v[k] & 0x3FF)
            let y0 = Int(upper[even] & 0x3FF), y1 = Int(lower[even] & 0x3FF)
            // Even columns see their own chroma sample.
            let cell = Lookup.ChromaCell(cb: u0, cr: v0)
            let luma = Lookup.LumaCell(cell)
            outUpper[even] = lookup.y(y0, luma)
            outLower[even] = lookup.y(y1, luma)
            // The chroma sample stands for the luma at its own position.
            let mapped = lookup.cbcr(left ? (y0 &+ y1 &+ 1) >> 1 : y0, cell)
            outU[i] = mapped.0
            outV[i] = mapped.1
            // Odd columns lie halfway between two chroma samples.
            if odd < width {
                let between = Lookup.LumaCell(Lookup.ChromaCell(cb: (u0 &+ u1 &+ 1) >> 1, cr: (v0 &+ v1 &+ 1) >> 1))
                outUpper[odd] = lookup.y(Int(upper[odd] & 0x3FF), between)
                outLower[odd] = lookup.y(Int(lower[odd] & 0x3FF), between)
            }
            u0 = u1
            v0 = v1
        }
    }
}
