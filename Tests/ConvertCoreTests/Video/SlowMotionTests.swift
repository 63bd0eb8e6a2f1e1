import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 56, "slow motion plays as the phone plays it": a Samsung clip's SEF segments read as
/// androidx/media's SefReader reads them and flattened as its Transformer does, checked with
/// ffprobe against the segments; Android's capture-rate tag alone gets a note; damaged markers
/// give a plain conversion with a note.
@Suite("Slow motion: SEF segments read, flattened and described")
struct SlowMotionTests {
    static let samsung = Fixtures.path("video/slowmo/sample_sef_slow_motion.mp4")
    static let android = Fixtures.path("video/slowmo/sample_android_slow_motion.mp4")
    /// `88:879:2*1255:1970:4`: speed mode m slows 2^(m-1) times (androidx's SefReader and its
    /// test of this very file say 2 and 8).
    static let segments = SlowMotionSegments(segments: [
        .init(startMilliseconds: 88, endMilliseconds: 879, speedDivisor: 2),
        .init(startMilliseconds: 1255, endMilliseconds: 1970, speedDivisor: 8),
    ])
    static let flattening = SlowMotionFlattening(segments, captureRate: 240)

    static func convert(_ input: String, in directory: URL, _ change: (inout VideoRequest) -> Void = { _ in })
        async throws -> JobResult
    {
        var request = VideoRequest(input: input, output: OutputLocation(directory: directory.path))
        request.preset = .ultrafast
        change(&request)
        return try await VideoConverter.convert(request).result()
    }

    /// The Samsung clip with `change` applied to its bytes, written into `directory`.
    static func damagedCopy(_ change: (inout [UInt8]) -> Void, in directory: URL) throws -> String {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: samsung)))
        change(&bytes)
        let path = directory.appendingPathComponent("damaged.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Where the trailer's directory (`SEFH`) starts.
    static func directoryStart(_ bytes: [UInt8]) -> Int {
        (0..<(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == Array("SEFH".utf8) } ?? 0
    }

    static func putLE32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
    }

    @Test("The Samsung trailer reads 88–879 ms at 1/2 and 1255–1970 ms at 1/8; the Android clip has none")
    func readsTrailer() throws {
        #expect(SlowMotionSegments.read(from: try FileByteSource(path: Self.samsung)) == .segments(Self.segments))
        #expect(SlowMotionSegments.read(from: try FileByteSource(path: Self.android)) == .absent)
    }

    @Test(
        "As in androidx's SefReader, the entry is known by its name: a super slow-motion type still reads, another name does not"
    )
    func entryByName() throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: Self.samsung)))
        let start = Self.directoryStart(original)
        var retyped = original
        (retyped[start + 26], retyped[start + 27]) = (0x00, 0x0B)
        #expect(SlowMotionSegments.read(from: MemoryByteSource(bytes: retyped)) == .segments(Self.segments))
        var renamed = original
        let name = try #require(
            (0..<(start - 15)).last { Array(original[$0..<($0 + 15)]) == Array("SlowMotion_Data".utf8) })
        renamed[name] = UInt8(ascii: "X")
        #expect(SlowMotionSegments.read(from: MemoryByteSource(bytes: renamed)) == .absent)
    }

    @Test("Damaged trailers are values, never a read outside the file")
    func damagedTrailers() throws {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: Self.samsung)))
        let start = Self.directoryStart(original)
        func reading(_ change: (inout [UInt8]) -> Void) -> SlowMotionSegments.Reading {
            var bytes = original
            change(&bytes)
            return SlowMotionSegments.read(from: MemoryByteSource(bytes: bytes))
        }
        // The slow-motion record is the second: its distance back to the data, then its length.
        #expect(
            reading { Self.putLE32(0x7FFF_FFFF, at: start + 28, in: &$0) }
                == .damaged("its slow-motion entry points outside the file"))
        #expect(
            reading { Self.putLE32(0xFFFF, at: start + 32, in: &$0) }
                == .damaged("its slow-motion entry points outside the file"))
        #expect(
            reading { Self.putLE32(0x00FF_FFFF, at: $0.count - 8, in: &$0) }
                == .damaged("its SEF trailer's directory lies outside the file"))
        #expect(
            reading { Self.putLE32(1000, at: start + 8, in: &$0) }
                == .damaged("its SEF trailer's directory is cut short"))
        #expect(reading { $0.removeLast(20) } == .damaged("its SEF trailer is cut short"))
        #expect(
            SlowMotionSegments.parse(text: "88:879:2*1255:1970:x")
                == .damaged("its slow-motion entry reads \"1255:1970:x\""))
        #expect(SlowMotionSegments.parse(text: "88:879:2*500:1970:4") == .damaged("its slow-motion segments overlap"))
        #expect(SlowMotionSegments.parse(text: "0:100:1") == .absent)
        // Every cut of the trailer, byte by byte, reads without a crash.
        for cut in stride(from: original.count, through: start - 64, by: -1) {
            _ = SlowMotionSegments.read(from: MemoryByteSource(bytes: Array(original[..<cut])))
        }
    }

    @Test("The timeline: normal parts at 30/240 of the file's time, segments 2 and 8 times slower")
    func timeline() {
        let flat = Self.flattening
        #expect(flat.normalScale == 0.125)
        #expect(abs(flat.outputTime(0.088) - 0.011) < 1e-9)
        #expect(abs(flat.outputTime(0.879) - (0.088 + 2 * 0.791) / 8) < 1e-9)
        #expect(abs(flat.outputTime(2.1) - (2.1 + 0.791 + 7 * 0.715) / 8) < 1e-9)
        #expect(SlowMotionFlattening.tempoChain(0.25) == "atempo=0.5,atempo=0.5")
        #expect(SlowMotionFlattening.tempoChain(8) == "atempo=8.0")
    }

    @Test(
        "A Samsung clip plays as the phone plays it: each frame at its place on the flattened timeline, 30 fps at most, ~0.99 s"
    )
    func flattens() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Self.samsung, in: directory)
        #expect(
            result.notes.messages.first
                == "video re-encoded to h264 (its slow motion flattened, which a copy cannot do)")
        #expect(
            result.notes.messages.contains(
                "slow motion played as the phone plays it: 0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps; "
                    + "the sound follows the same timeline, its pitch kept"))
        let output = try outputPath(result)
        let source = try MediaTool.videoFrameTimes(Self.samsung)
        let times = try MediaTool.videoFrameTimes(output)
        let mapped = source.map(Self.flattening.outputTime)
        // Every output frame is a source frame at its flattened time.
        for time in times { #expect(mapped.contains { abs($0 - time) < 0.0015 }, "frame at \(time)") }
        // The ÷8 segment plays at the stored 30 fps: every one of its 22 frames is kept.
        let slowest = Self.flattening.outputTime(1.255)...Self.flattening.outputTime(1.970)
        let inSlowest = source.filter { $0 >= 1.255 && $0 <= 1.970 }.count
        #expect(inSlowest == 22)
        #expect(times.filter { slowest.contains($0) }.count == inSlowest)
        // Elsewhere the phone shows one frame a 30th of a second, not the 240 it captured.
        for (earlier, later) in zip(times, times.dropFirst()) where !slowest.contains(later) {
            #expect(later - earlier > 0.95 / 30 - 0.0015, "frame at \(later)")
        }
        let probe = try MediaTool.probe(output)
        let end = Self.flattening.outputTime(2.1)
        #expect(try abs(#require(probe.video?.duration) - end) < 1.0 / 30)
        let soundEnd = Self.flattening.outputTime(2.15175)
        #expect(try abs(#require(probe.audio?.duration) - soundEnd) < 1.0 / 30)
    }

    @Test("A GIF of the Samsung clip is flattened too: about 0.99 s, not 2.1 s")
    func gifFlattens() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = GIFRequest(
            input: Self.samsung, framesPerSecond: 10, width: 64, output: OutputLocation(directory: directory.path))
        let result = try await VideoConverter.gif(request).result()
        #expect(
            result.notes.messages.contains(
                "slow motion played as the phone plays it: 0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps")
        )
        let duration = try #require(try MediaTool.probe(try outputPath(result)).duration)
        #expect(abs(duration - Self.flattening.outputTime(2.1)) < 0.1)
    }

    @Test(
        "keep copies at the file's timing with the markers (the source's sefd box ends the MP4), and the copy's edit list hides the frame the source's hides (63 of 64)"
    )
    func keepCopies() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Self.samsung, in: directory) { $0.slowMotion = .keep }
        #expect(
            result.notes.messages == [
                "video copied without re-encoding",
                "slow motion markers kept (Samsung's SEF trailer): a Galaxy plays the segments slowed",
                "audio copied without re-encoding",
            ])
        let output = try outputPath(result)
        #expect(try VideoFidelityTests.decodedCounts(Self.samsung) == [25, 63])
        #expect(try VideoFidelityTests.decodedCounts(output) == [63, 25])
        #expect(try abs(#require(MediaTool.probe(output).video?.duration) - 2.1) < 0.0005)
        // The source's last 128 bytes are its sefd box; the output ends with the same bytes, so
        // a reader that looks at the file's end (the phone, androidx's SefReader) finds them.
        let source = Array(try Data(contentsOf: URL(fileURLWithPath: Self.samsung)))
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        let box = Array(source.suffix(128))
        #expect(box[4..<8].elementsEqual("sefd".utf8) && box.suffix(4).elementsEqual("SEFT".utf8))
        #expect(Array(written.suffix(128)) == box)
        #expect(SlowMotionSegments.read(from: MemoryByteSource(bytes: written)) == .segments(Self.segments))
    }

    @Test("keep into MKV, or with a cut: the markers are left out with the reason")
    func keepWhereMarkersCannotGo() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mkv = try await Self.convert(Self.samsung, in: directory) {
            $0.slowMotion = .keep
            $0.container = .mkv
        }
        #expect(
            mkv.notes.messages.contains(
                "slow motion markers left out: only MP4 and MOV carry Samsung's trailer; it plays at the file's own timing"
            ))
        let cut = try await Self.convert(Self.samsung, in: directory) {
            $0.slowMotion = .keep
            $0.start = 0.5
        }
        #expect(cut.notes.messages.contains("slow motion markers left out: a cut moves the timeline they mark"))
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: try outputPath(cut))))
        #expect(SlowMotionSegments.read(from: MemoryByteSource(bytes: written)) == .absent)
    }

    @Test("Android's capture-rate tag alone: a copy at the file's timing, with a note")
    func captureRateOnly() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.convert(Self.android, in: directory)
        #expect(
            result.notes.messages == [
                "video copied without re-encoding",
                "captured at 240 fps for slow motion, with no slowed segments marked: it plays at the file's own timing",
            ])
    }

    @Test(
        "Damaged markers (lying offsets, a trailer cut short) give a plain copy with a note",
        arguments: ["lying", "cut"])
    func damagedConverts(_ damage: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.damagedCopy(
            { bytes in
                if damage == "cut" {
                    bytes.removeLast(20)
                } else {
                    Self.putLE32(0x7FFF_FFFF, at: Self.directoryStart(bytes) + 28, in: &bytes)
                }
            }, in: directory)
        let result = try await Self.convert(input, in: directory)
        let why = damage == "cut" ? "its SEF trailer is cut short" : "its slow-motion entry points outside the file"
        #expect(
            result.notes.messages == [
                "video copied without re-encoding",
                "slow motion markers not used (\(why)): the clip plays at the file's own timing",
                "audio copied without re-encoding",
            ])
        #expect(try VideoFidelityTests.decodedCounts(try outputPath(result)) == [63, 25])
    }

    @Test("info shows the segments and the capture rate, or the rate alone")
    func probes() async throws {
        let samsung = try #require(try await MediaProbe.probe(path: Self.samsung).container?.slowMotion)
        #expect(samsung.summary == "0.09–0.88 s at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps")
        #expect(samsung.segments.map(\.speedDivisor) == [2, 8])
        let android = try #require(try await MediaProbe.probe(path: Self.android).container?.slowMotion)
        #expect(android.summary == "captured at 240 fps, no slowed segments marked")
        #expect(try await MediaProbe.probe(path: Fixtures.path("video/sample.mp4")).container?.slowMotion == nil)
    }
}
