import ConvertCore
internal import FFmpegLayer
import Foundation

/// The tone-map stage alone, for the benchmarks in Benchmarks/ and the tests (`package`, not part of
/// the public API): decodes a clip's video with the product's decoder settings and tone maps
/// every frame, encoding and writing nothing, so the stage's cost is the difference from
/// ``Mode/decode``.
package enum ToneMapFloor {
    /// What is done with each decoded frame.
    package enum Mode: String, Sendable, CaseIterable {
        /// Nothing: the decode floor.
        case decode
        /// The table tone mapper (``LUTToneMapper``), as `send-to-windows` runs it.
        case table
        /// The same table through its scalar kernel, as on a CPU without AVX2 (same bytes).
        case tableScalar = "table-scalar"
        /// The zscale+tonemap float chain (``ToneMapDecision/filter(for:)``), the fallback.
        case zscale
    }

    /// Decodes the first video stream of the clip at `path` and handles every frame as `mode`
    /// says; with `rawOutput`, appends each tone-mapped frame there as raw `yuv420p` (for the
    /// quality tests). Returns the number of frames.
    package static func run(path: String, mode: Mode, rawOutput: String? = nil) throws(ConvertError) -> Int {
        let demuxer = try Demuxer(path: path)
        guard let stream = MediaSnapshot(demuxer).video,
            case let source = ToneMapDecision.classify(stream), source == .pq || source == .hlg
        else {
            throw ConvertError(code: .requestNotHdr, message: "\(path) has no PQ or HLG video.", path: path)
        }
        let input = demuxer.stream(stream.index)
        let decoder = try CodecDecoder(stream: input, path: path)
        let sink = try rawOutput.map { path throws(ConvertError) in try RawSink(path: path) }
        let stage = try Stage(mode: mode, source: source, decoder: decoder, timeBase: input.timeBase, path: path)
        let packet = try Packet()
        let decoded = try Frame()
        var frames = 0
        func drain() throws(ConvertError) {
            while try decoder.receive(into: decoded) == .frame {
                frames += 1
                try stage.handle(decoded, sink: sink)
                decoded.unref()
            }
        }
        while try demuxer.read(into: packet) == .packet {
            if packet.streamIndex == stream.index {
                while true {
                    let accepted = try decoder.send(packet)
                    try drain()
                    if accepted { break }
                }
            }
            packet.unref()
        }
        _ = try decoder.send(nil)
        try drain()
        try stage.finish(sink: sink)
        return frames
    }

    /// One mode's per-frame work.
    private final class Stage {
        let mode: Mode
        let mapper: LUTToneMapper
        let graph: FilterGraph?
        let mapped: Frame

        init(mode: Mode, source: ToneMapDecision.Source, decoder: CodecDecoder, timeBase: Rational, path: String)
            throws(ConvertError)
        {
            self.mode = mode
            mapper = LUTToneMapper(source: source, path: path, vector: mode != .tableScalar)
            mapped = try Frame()
            let picture = decoder.video
            graph =
                mode != .zscale
                ? nil
                : try FilterGraph(
                    video: .init(
                        width: picture.width, height: picture.height, pixelFormat: picture.pixelFormat,
                        timeBase: timeBase, sampleAspect: Rational(1, 1)),
                    description: ToneMapDecision.filter(for: source), path: path)
        }

        func handle(_ frame: Frame, sink: RawSink?) throws(ConvertError) {
            switch mode {
            case .decode:
                return
            case .table, .tableScalar:
                try mapper.map(frame, into: mapped)
                try sink?.write(mapped)
                mapped.unref()
            case .zscale:
                try graph?.push(frame)
                try pull(sink: sink)
            }
        }

        func finish(sink: RawSink?) throws(ConvertError) {
            guard let graph else { return }
            try graph.push(nil)
            try pull(sink: sink)
        }

        private func pull(sink: RawSink?) throws(ConvertError) {
            guard let graph else { return }
            while try graph.pull(into: mapped) == .frame {
                try sink?.write(mapped)
                mapped.unref()
            }
        }
    }
}

/// Raw `yuv420p` frames appended to a file, for comparing with ffmpeg's `-f rawvideo` output.
private final class RawSink {
    private let handle: FileHandle
    private let path: String

    init(path: String) throws(ConvertError) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw ConvertError(code: .deviceCreate, message: "Cannot create \(path).", path: path)
        }
        self.handle = handle
        self.path = path
    }

    deinit { try? handle.close() }

    /// Appends the visible rows of each plane of `frame` (8-bit 4:2:0).
    func write(_ frame: Frame) throws(ConvertError) {
        var bytes = Data()
        let width = Int(frame.width)
        let height = Int(frame.height)
        frame.withPlanes { planes in
            for (index, columns, rows) in [
                (0, width, height), (1, (width + 1) / 2, (height + 1) / 2), (2, (width + 1) / 2, (height + 1) / 2),
            ] {
                for row in 0..<rows { bytes.append(planes.row(index, row, as: UInt8.self), count: columns) }
            }
        }
        do { try handle.write(contentsOf: bytes) } catch {
            throw ConvertError(code: .deviceWrite, message: "Cannot write \(path).", path: path)
        }
    }
}
