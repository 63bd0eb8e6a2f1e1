internal import CFFmpeg
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

    init(source: ToneMapDecision.Source, path: String, workers: Int = 2) {
        self.source = source
        self.path = path
        self.workers = max(1, workers)
    }

    /// Whether the table can map `frame`: 10-bit 4:2:0 with left, top-left or unspecified siting.
    static func covers(_ frame: Frame) -> Bool {
        let picture = frame.pointer.pointee
        return picture.format == AV_PIX_FMT_YUV420P10LE.rawValue && siting(picture.chroma_location) != nil
            && picture.width > 0 && picture.height > 0
    }

    /// Whether frames of this pixel format can be covered (decided before the first frame).
    static func covers(pixelFormat: AVPixelFormat) -> Bool { pixelFormat == AV_PIX_FMT_YUV420P10LE }

    private static func siting(_ location: AVChromaLocation) -> Siting? {
        switch location {
        case AVCHROMA_LOC_LEFT, AVCHROMA_LOC_UNSPECIFIED: return .left
        case AVCHROMA_LOC_TOPLEFT: return .topLeft
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
        let source = input.pointer
        let target = output.pointer
        try FFmpeg.check(av_frame_copy_props(target, source), "copy frame properties", path: path, category: .internal)
        target.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        target.pointee.width = source.pointee.width
        target.pointee.height = source.pointee.height
        target.pointee.color_primaries = AVCOL_PRI_BT709
        target.pointee.color_trc = AVCOL_TRC_BT709
        target.pointee.colorspace = AVCOL_SPC_BT709
        target.pointee.color_range = AVCOL_RANGE_MPEG
        // HDR side data describes the source's light, not the SDR picture.
        for kind in [AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL,
                     AV_FRAME_DATA_DYNAMIC_HDR_PLUS, AV_FRAME_DATA_DOVI_RPU_BUFFER, AV_FRAME_DATA_DOVI_METADATA] {
            av_frame_remove_side_data(target, kind)
        }
        try FFmpeg.check(av_frame_get_buffer(target, 0), "allocate a frame", path: path, category: .internal)
        guard let siting = Self.siting(source.pointee.chroma_location) else {
            preconditionFailure("map(_:into:) called for a frame the table does not cover")
        }
        let planes = Planes(source: source.pointee, target: target.pointee, siting: siting)
        let workers = min(self.workers, planes.chromaHeight)
        table.luma.withUnsafeBufferPointer { luma in
            table.chroma.withUnsafeBufferPointer { chroma in
                let lookup = Lookup(luma: luma.baseAddress!, chroma: chroma.baseAddress!)
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
private struct Lookup: @unchecked Sendable {
    let luma: UnsafePointer<UInt16>
    let chroma: UnsafePointer<UInt16>

    /// One tetrahedron of the cell holding (y, cb, cr): its first node, the two middle nodes'
    /// offsets from it, and the sorted fractions (0…16) that weight the four nodes.
    @inline(__always)
    static func cell(_ y: Int32, _ cb: Int32, _ cr: Int32) -> (base: Int, a: Int, b: Int, f1: Int32, f2: Int32, f3: Int32) {
        let n = ToneMapTable.nodes
        let fy = y & 15, fb = cb & 15, fr = cr & 15
        let base = (Int(y >> 4) &* n &+ Int(cb >> 4)) &* n &+ Int(cr >> 4)
        let dy = n &* n, db = n, dr = 1
        if fy >= fb {
            if fb >= fr { return (base, dy, dy &+ db, fy, fb, fr) }
            if fy >= fr { return (base, dy, dy &+ dr, fy, fr, fb) }
            return (base, dr, dy &+ dr, fr, fy, fb)
        }
        if fr > fb { return (base, dr, db &+ dr, fr, fb, fy) }
        if fr > fy { return (base, db, db &+ dr, fb, fr, fy) }
        return (base, db, dy &+ db, fb, fy, fr)
    }

    /// The far corner's offset in a cell.
    static let far = ToneMapTable.nodes &* ToneMapTable.nodes &+ ToneMapTable.nodes &+ 1

    /// 16-bit table values to 8 bits: weights sum to 16, values are 8-bit × 256.
    @inline(__always)
    static func eight(_ sum: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min((sum &+ 2048) >> 12, 255)) }

    @inline(__always)
    func y(_ y: Int32, _ cb: Int32, _ cr: Int32) -> UInt8 {
        let c = Lookup.cell(y, cb, cr)
        let p = luma + c.base
        let sum = Int32(p[0]) &* (16 &- c.f1) &+ Int32(p[c.a]) &* (c.f1 &- c.f2)
            &+ Int32(p[c.b]) &* (c.f2 &- c.f3) &+ Int32(p[Lookup.far]) &* c.f3
        return Lookup.eight(sum)
    }

    @inline(__always)
    func cbcr(_ y: Int32, _ cb: Int32, _ cr: Int32) -> (UInt8, UInt8) {
        let c = Lookup.cell(y, cb, cr)
        let p = chroma + 2 &* c.base
        let w0 = 16 &- c.f1, w1 = c.f1 &- c.f2, w2 = c.f2 &- c.f3, w3 = c.f3
        let a = 2 &* c.a, b = 2 &* c.b, f = 2 &* Lookup.far
        let u = Int32(p[0]) &* w0 &+ Int32(p[a]) &* w1 &+ Int32(p[b]) &* w2 &+ Int32(p[f]) &* w3
        let v = Int32(p[1]) &* w0 &+ Int32(p[a &+ 1]) &* w1 &+ Int32(p[b &+ 1]) &* w2 &+ Int32(p[f &+ 1]) &* w3
        return (Lookup.eight(u), Lookup.eight(v))
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

    init(source: AVFrame, target: AVFrame, siting: LUTToneMapper.Siting) {
        y = UnsafePointer(source.data.0!)
        cb = UnsafePointer(source.data.1!)
        cr = UnsafePointer(source.data.2!)
        yStride = Int(source.linesize.0)
        cStride = Int(source.linesize.1)
        outY = target.data.0!
        outCb = target.data.1!
        outCr = target.data.2!
        outYStride = Int(target.linesize.0)
        outCStride = Int(target.linesize.1)
        width = Int(source.width)
        height = Int(source.height)
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        self.siting = siting
    }

    @inline(__always)
    private func row16(_ base: UnsafePointer<UInt8>, _ stride: Int, _ row: Int) -> UnsafePointer<UInt16> {
        UnsafeRawPointer(base + row &* stride).assumingMemoryBound(to: UInt16.self)
    }

    /// Maps chroma row `j` and the one or two luma rows it covers.
    func mapRows(chromaRow j: Int, lookup: Lookup) {
        let top = 2 &* j, bottom = min(2 &* j &+ 1, height &- 1)
        let u = row16(cb, cStride, j), v = row16(cr, cStride, j)
        let upper = row16(y, yStride, top), lower = row16(y, yStride, bottom)
        let last = chromaWidth &- 1
        for row in top...bottom {
            let luma = row == top ? upper : lower
            let out = outY + row &* outYStride
            var x = 0
            while x < width {
                let i = x >> 1
                let u0 = Int32(u[i] & 0x3FF), v0 = Int32(v[i] & 0x3FF)
                out[x] = lookup.y(Int32(luma[x] & 0x3FF), u0, v0)
                if x &+ 1 < width {
                    let k = min(i &+ 1, last)
                    let u1 = (u0 &+ Int32(u[k] & 0x3FF) &+ 1) >> 1, v1 = (v0 &+ Int32(v[k] & 0x3FF) &+ 1) >> 1
                    out[x &+ 1] = lookup.y(Int32(luma[x &+ 1] & 0x3FF), u1, v1)
                }
                x &+= 2
            }
        }
        let outU = outCb + j &* outCStride, outV = outCr + j &* outCStride
        for i in 0..<chromaWidth {
            let column = 2 &* i
            let at: Int32 = siting == .left
                ? (Int32(upper[column] & 0x3FF) &+ Int32(lower[column] & 0x3FF) &+ 1) >> 1
                : Int32(upper[column] & 0x3FF)
            let mapped = lookup.cbcr(at, Int32(u[i] & 0x3FF), Int32(v[i] & 0x3FF))
            outU[i] = mapped.0
            outV[i] = mapped.1
        }
    }
}
