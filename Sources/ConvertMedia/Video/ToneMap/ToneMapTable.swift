import ConvertCore

/// A 3D table from 10-bit BT.2020 Y'CbCr (PQ or HLG) to 8-bit BT.709 Y'CbCr, built once per clip.
///
/// The table is *sampled from the reference chain itself* (``ToneMapDecision/filter(for:)``:
/// zscale linearisation, BT.2020 → BT.709 primaries in linear light, Hable on the brightest
/// component, BT.709 transfer and matrix): one 4:4:4 picture holding every node (65³ ≈ 275 000
/// pixels, a quarter of one 1080p frame) goes through that float chain once, at 16 bits out.
/// So the table is the same Hable curve and the same primaries conversion as the chain, with
/// zimg's exact constants, HLG system gamma and the clip's peak (the chain reads MaxCLL or the
/// mastering peak from the frame's side data, which the node picture carries over from the
/// clip's first frame), not a second implementation of them that could drift.
///
/// Why Hable and not the BT.2390 EETF: the quality bar is the zscale+Hable picture (PSNR against
/// it); BT.2390 keeps more highlight contrast but would differ from that reference by several dB
/// on bright clips, and it would change how every existing HDR conversion looks. The table makes
/// the curve a build-time choice: a BT.2390 table is one different sampling pass.
///
/// Nodes are every 16th code (0, 16, …, 1008, then 1023) on all three axes; between them
/// ``LUTToneMapper`` interpolates tetrahedrally. Outputs are 16-bit (8-bit value × 256), so the
/// interpolation rounds once, at the end.
struct ToneMapTable: Sendable {
    /// Nodes per axis.
    static let nodes = 65
    /// log2 of the codes per cell (1024 / 64).
    static let cellShift = 4
    /// Output Y' per node (16-bit), index `(y * nodes + cb) * nodes + cr`.
    let luma: [UInt16]
    /// Output Cb, Cr per node (16-bit, interleaved), index `2 × ((y * nodes + cb) * nodes + cr)`.
    let chroma: [UInt16]

    /// The 10-bit code of node `index` on any axis.
    static func code(_ index: Int) -> UInt16 { UInt16(min(index << cellShift, 1023)) }

    /// Samples the reference chain for `source`, with `frame`'s properties and side data (the
    /// tone curve's peak comes from them exactly as it would for the clip's own frames).
    static func sampled(for source: ToneMapDecision.Source, like frame: Frame, path: String) throws(ConvertError) -> ToneMapTable {
        let count = nodes * nodes * nodes
        let node = try nodePicture(like: frame, path: path)
        let graph = try FilterGraph(
            video: .init(width: Int32(nodes * nodes), height: Int32(nodes), pixelFormat: .yuv444p10le,
                         timeBase: Rational(1, 25), sampleAspect: Rational(1, 1)),
            description: ToneMapDecision.chain(for: source, output: "yuv444p16le"), path: path)
        try graph.push(node)
        try graph.push(nil)
        let mapped = try Frame()
        guard try graph.pull(into: mapped) == .frame, mapped.pixelFormat == .yuv444p16le else {
            throw ConvertError(.internal, code: .internalToneMap, message: "The tone map table could not be built.", path: path)
        }
        var luma = [UInt16](repeating: 0, count: count)
        var chroma = [UInt16](repeating: 0, count: 2 * count)
        let width = nodes * nodes
        mapped.withPlanes { planes in
            for row in 0..<nodes {
                let y = planes.row(0, row, as: UInt16.self), cb = planes.row(1, row, as: UInt16.self)
                let cr = planes.row(2, row, as: UInt16.self)
                // Column x of row r is node (r, x / nodes, x % nodes): the table's own index order.
                for x in 0..<width {
                    let index = row * width + x
                    // At most 255 × 256, so the interpolated value rounds to at most 255.
                    luma[index] = min(y[x], 65280)
                    chroma[2 * index] = min(cb[x], 65280)
                    chroma[2 * index + 1] = min(cr[x], 65280)
                }
            }
        }
        return ToneMapTable(luma: luma, chroma: chroma)
    }

    /// A `yuv444p10le` picture whose pixel (x, row) is node (row, x / nodes, x % nodes), with the
    /// clip's properties and side data (mastering display, content light level).
    private static func nodePicture(like frame: Frame, path: String) throws(ConvertError) -> Frame {
        let node = try Frame()
        try node.allocate(format: .yuv444p10le, width: nodes * nodes, height: nodes, propertiesOf: frame, path: path)
        node.pts = 0
        node.setSampleAspect(Rational(1, 1))
        node.withPlanes { planes in
            for row in 0..<nodes {
                let y = planes.row(0, row, as: UInt16.self), cb = planes.row(1, row, as: UInt16.self)
                let cr = planes.row(2, row, as: UInt16.self)
                for x in 0..<(nodes * nodes) {
                    y[x] = code(row)
                    cb[x] = code(x / nodes)
                    cr[x] = code(x % nodes)
                }
            }
        }
        return node
    }
}
