internal import CToneMap
import ConvertCore
internal import FFmpegLayer

/// A 3D table from 10-bit BT.2020 Y'CbCr (PQ or HLG) to 8-bit BT.709 Y'CbCr, built once per clip.
///
/// The table is *sampled from the reference chain itself* (``ToneMapDecision/filter(for:)``:
/// zscale linearisation, BT.2020 → BT.709 primaries in linear light, Hable on the brightest
/// component, BT.709 transfer and matrix): 4:4:4 pictures holding every node (65 × 65 × 1024 ≈
/// 4.3 M pixels, two 1080p frames) go through that float chain once, at 16 bits out.
/// So the table is the same Hable curve and the same primaries conversion as the chain, with
/// zimg's exact constants, HLG system gamma and the clip's peak (the chain reads MaxCLL or the
/// mastering peak from the frame's side data, which the node pictures carry over from the
/// clip's first frame), not a second implementation of them that could drift.
///
/// Why Hable and not the BT.2390 EETF: the quality bar is the zscale+Hable picture (PSNR against
/// it); BT.2390 keeps more highlight contrast but would differ from that reference by several dB
/// on bright clips, and it would change how every existing HDR conversion looks. The table makes
/// the curve a build-time choice: a BT.2390 table is one different sampling pass.
///
/// Two tables, both sampled in one pass:
/// - ``luma`` is exact along Y': one line of all 1024 codes per chroma node pair (65 × 65 nodes,
///   every 16th Cb and Cr code), so ``LUTToneMapper`` maps a luma pixel with a 2D (triangular)
///   interpolation in Cb, Cr whose weights it works out once per chroma sample, then three loads
///   and three multiplies per pixel. A 3D interpolation per luma pixel cost ~90 instructions;
///   the tone curve is steepest along Y', so no precision is lost either (8.6 MB per clip).
/// - ``chroma`` keeps 65³ nodes (every 16th code, then 1023, on all axes) for the tetrahedral
///   interpolation of each 4:2:0 chroma sample, a quarter as many lookups as luma.
///
/// Outputs are 16-bit (8-bit value × 256), so the interpolation rounds once, at the end.
struct ToneMapTable: Sendable {
    /// Nodes per axis (the chroma axes of both tables, also Y' in ``chroma``).
    static let nodes = Int(OFFC_TM_NODES)
    /// log2 of the codes per cell (1024 / 64).
    static let cellShift = Int(OFFC_TM_CELL_SHIFT)
    /// 10-bit codes: the length of one line of ``luma``.
    static let codes = Int(OFFC_TM_CODES)
    /// Output Y' (16-bit), index `(cb * nodes + cr) * codes + y` for node cb, node cr and code y,
    /// then `OFFC_TM_LUMA_PADDING` zeros the vector kernel may read past the last line.
    let luma: [UInt16]
    /// Output Cb, Cr per node (16-bit, interleaved), index `2 × ((y * nodes + cb) * nodes + cr)`.
    let chroma: [UInt16]

    /// The 10-bit code of node `index` on any axis.
    static func code(_ index: Int) -> UInt16 { UInt16(min(index << cellShift, 1023)) }

    /// Samples the reference chain for `source`, with `frame`'s properties and side data (the
    /// tone curve's peak comes from them exactly as it would for the clip's own frames).
    ///
    /// One picture per Cb node (`codes` wide, one row per Cr node, column x is code x of Y'), so
    /// the chain's float frames stay small (~1 MB each) while it sees 4.3 M samples in all.
    static func sampled(for source: ToneMapDecision.Source, like frame: Frame, path: String) throws(ConvertError)
        -> ToneMapTable
    {
        let graph = try FilterGraph(
            video: .init(
                width: Int32(codes), height: Int32(nodes), pixelFormat: .yuv444p10le,
                timeBase: Rational(1, 25), sampleAspect: Rational(1, 1)),
            description: ToneMapDecision.chain(for: source, output: "yuv444p16le"), path: path)
        var table = Storage()
        let mapped = try Frame()
        func drain() throws(ConvertError) {
            while try graph.pull(into: mapped) == .frame {
                guard mapped.pixelFormat == .yuv444p16le, table.next < nodes else { throw failure(path) }
                table.add(mapped)
                mapped.unref()
            }
        }
        for cb in 0..<nodes {
            try graph.push(try nodePicture(cb: cb, like: frame, path: path))
            try drain()
        }
        try graph.push(nil)
        try drain()
        guard table.next == nodes else { throw failure(path) }
        return ToneMapTable(luma: table.luma, chroma: table.chroma)
    }

    private static func failure(_ path: String) -> ConvertError {
        ConvertError(code: .internalToneMap, message: "The tone map table could not be built.", path: path)
    }

    /// The tables being filled, one mapped Cb node picture at a time.
    private struct Storage {
        var luma = [UInt16](repeating: 0, count: nodes * nodes * codes + Int(OFFC_TM_LUMA_PADDING))
        var chroma = [UInt16](repeating: 0, count: 2 * nodes * nodes * nodes)
        /// The Cb node of the next picture (the graph keeps their order).
        var next = 0

        mutating func add(_ picture: Frame) {
            let cb = next
            next += 1
            picture.withPlanes { planes in
                for cr in 0..<nodes {
                    let y = planes.row(0, cr, as: UInt16.self)
                    let u = planes.row(1, cr, as: UInt16.self)
                    let v = planes.row(2, cr, as: UInt16.self)
                    let line = (cb * nodes + cr) * codes
                    // At most 255 × 256, so the interpolated value rounds to at most 255.
                    for x in 0..<codes { luma[line + x] = min(y[x], 65280) }
                    for node in 0..<nodes {
                        let x = Int(code(node))
                        let index = 2 * ((node * nodes + cb) * nodes + cr)
                        chroma[index] = min(u[x], 65280)
                        chroma[index + 1] = min(v[x], 65280)
                    }
                }
            }
        }
    }

    /// A `yuv444p10le` picture whose pixel (x, row) is Y' code x, Cb node `cb`, Cr node `row`, with
    /// the clip's properties and side data (mastering display, content light level).
    private static func nodePicture(cb: Int, like frame: Frame, path: String) throws(ConvertError) -> Frame {
        let node = try Frame()
        try node.allocate(format: .yuv444p10le, width: codes, height: nodes, propertiesOf: frame, path: path)
        node.pts = Int64(cb)
        node.setSampleAspect(Rational(1, 1))
        node.withPlanes { planes in
            for row in 0..<nodes {
                let y = planes.row(0, row, as: UInt16.self)
                let u = planes.row(1, row, as: UInt16.self)
                let v = planes.row(2, row, as: UInt16.self)
                for x in 0..<codes {
                    y[x] = UInt16(x)
                    u[x] = code(cb)
                    v[x] = code(row)
                }
            }
        }
        return node
    }
}
