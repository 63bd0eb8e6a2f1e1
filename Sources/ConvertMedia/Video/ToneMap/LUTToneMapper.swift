internal import CToneMap
import ConvertCore
internal import FFmpegLayer

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
/// Interpolation: luma is interpolated in 2D only (``ToneMapTable/luma`` is exact along Y'): the
/// Cb, Cr square of a chroma sample splits along its diagonal into two triangles, and the
/// triangle's three nodes and weights serve every luma pixel that sees this chroma. Chroma is
/// tetrahedral: a cell's cube splits into six tetrahedra along its main diagonal, and the one
/// holding the point is picked by sorting the three fractions, with selects rather than branches
/// (fractions of neighbouring pixels are noise, so branches would be mispredicted half the time).
/// The per-pixel walk is the C kernel in `CToneMap`: eight chroma samples at a time with AVX2
/// gathers where the CPU has them, the same bytes from its scalar loop elsewhere.
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
    /// Whether rows go through the vector kernel.
    private let vector: Bool

    /// A mapper for one clip. `vector: false` forces the scalar kernel (tests compare the two);
    /// `true` uses the vector kernel where the CPU has it.
    init(source: ToneMapDecision.Source, path: String, workers: Int = 2, vector: Bool = true) {
        self.source = source
        self.path = path
        self.workers = max(1, workers)
        self.vector = vector && offc_tm_vector_supported() != 0
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
                render(source, into: target, width: width, height: height, siting: siting, table: table)
            }
        }
    }

    private func outputPool(width: Int, height: Int) throws(ConvertError) -> OutputFramePool {
        if let pool, pool.width == width, pool.height == height { return pool }
        let fresh = try OutputFramePool(width: width, height: height, path: path)
        pool = fresh
        return fresh
    }

    private func render(
        _ planes: FramePlanes, into target: FramePlanes, width: Int, height: Int, siting: Siting,
        table: ToneMapTable
    ) {
        let chromaHeight = (height + 1) / 2
        let workers = min(self.workers, chromaHeight)
        let vector: Int32 = self.vector ? 1 : 0
        let frame = offc_tm_planes(planes, into: target, width: width, height: height, siting: siting)
        // The vector kernel reads luma entries 32 bits at a time, so one entry past the last line.
        precondition(
            table.luma.count == ToneMapTable.nodes * ToneMapTable.nodes * ToneMapTable.codes + Int(OFFC_TM_LUMA_PADDING)
        )
        table.luma.withUnsafeBufferPointer { luma in
            table.chroma.withUnsafeBufferPointer { chroma in
                let kernel = Kernel(
                    planes: frame, table: offc_tm_table(luma: luma.baseAddress!, chroma: chroma.baseAddress!))
                let work: @Sendable (Int) -> Void = { worker in
                    kernel.map(
                        rows: (chromaHeight * worker / workers)..<(chromaHeight * (worker + 1) / workers),
                        vector: vector)
                }
                // Off the cooperative pool: the pump runs on a codec thread, which maps the first
                // rows itself and hands the rest to its pool's helpers.
                WorkerPool.current.forEach(iterations: workers, work)
            }
        }
    }

    enum Siting: Sendable { case left, topLeft }
}

/// One frame's planes and the table, borrowed for one ``LUTToneMapper/map(_:into:)`` call, so
/// the workers can share them (each writes its own rows).
private struct Kernel: @unchecked Sendable {
    var planes: offc_tm_planes
    var table: offc_tm_table

    func map(rows: Range<Int>, vector: Int32) {
        var planes = planes
        var table = table
        offc_tm_map_rows(&planes, &table, Int32(rows.lowerBound), Int32(rows.upperBound), vector)
    }
}

extension offc_tm_planes {
    /// The kernel's view of a frame's planes, `yuv420p10le` in and `yuv420p` out.
    fileprivate init(
        _ source: FramePlanes, into target: FramePlanes, width: Int, height: Int, siting: LUTToneMapper.Siting
    ) {
        func bytes(_ planes: FramePlanes, _ index: Int) -> UnsafeMutablePointer<UInt8> {
            planes.base(index).assumingMemoryBound(to: UInt8.self)
        }
        self.init(
            y: bytes(source, 0), cb: bytes(source, 1), cr: bytes(source, 2), y_stride: source.stride(0),
            c_stride: source.stride(1), out_y: bytes(target, 0), out_cb: bytes(target, 1), out_cr: bytes(target, 2),
            out_y_stride: target.stride(0), out_c_stride: target.stride(1), width: Int32(width), height: Int32(height),
            top_left: siting == .topLeft ? 1 : 0)
    }
}
