import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue 18, "HDR metadata is kept where we promise it": HEVC and AV1 re-encodes of HDR10 carry
/// the mastering display and MaxCLL/MaxFALL, here from a source that has them only in SEI.
@Suite("Video HDR10 metadata in re-encodes")
struct VideoHDRMetadataTests {
    /// The side data ffprobe reads from the first decoded frame, by type.
    static func firstFrameSideData(_ path: String) throws -> [String: [String: Any]] {
        let result = try MediaTool.run(
            "ffprobe",
            [
                "-v", "error", "-read_intervals", "%+#1", "-select_streams", "v:0",
                "-show_frames", "-show_entries", "frame=side_data_list", "-of", "json", path,
            ])
        let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
        let frames = object["frames"] as? [[String: Any]] ?? []
        var byType: [String: [String: Any]] = [:]
        for item in frames.first?["side_data_list"] as? [[String: Any]] ?? [] {
            if let type = item["side_data_type"] as? String { byType[type] = item }
        }
        return byType
    }

    static func ratio(_ value: Any?) -> Double {
        let parts = (value as? String ?? "").split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : -1
    }

    @Test(
        "x265 and SVT-AV1 re-encodes of an SEI-only HDR10 clip keep mastering display and MaxCLL/MaxFALL",
        arguments: [(VideoContainer.mp4, VideoCodec.hevc), (.mkv, .av1)])
    func seiOnly(_ container: VideoContainer, _ codec: VideoCodec) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("pq-hevc.mp4")
        // The source has no mdcv/clli box: ffprobe sees the values only in the frames.
        #expect(try MediaTool.probe(input).video?.sideDataTypes.isEmpty == true)
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: container, codec: codec, crf: 40,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("HDR kept"))
        let side = try Self.firstFrameSideData(try outputPath(result))
        let mastering = try #require(side["Mastering display metadata"])
        #expect(abs(Self.ratio(mastering["max_luminance"]) - 1000) < 1)
        #expect(abs(Self.ratio(mastering["green_x"]) - 0.265) < 0.001)
        #expect(abs(Self.ratio(mastering["red_y"]) - 0.32) < 0.001)
        #expect(abs(Self.ratio(mastering["white_point_x"]) - 0.3127) < 0.001)
        let light = try #require(side["Content light level metadata"])
        #expect((light["max_content"] as? NSNumber)?.intValue == 1000)
        #expect((light["max_average"] as? NSNumber)?.intValue == 400)
        #expect(!result.notes.messages.contains { $0.contains("HDR10+") })
    }

    /// How many decoded video frames carry each side data type.
    static func framesWithSideData(_ path: String) throws -> [String: Int] {
        let result = try MediaTool.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_frames",
                "-show_entries", "frame=side_data_list", "-of", "json", path,
            ])
        let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
        var counts: [String: Int] = [:]
        for frame in object["frames"] as? [[String: Any]] ?? [] {
            for item in frame["side_data_list"] as? [[String: Any]] ?? [] {
                if let type = item["side_data_type"] as? String { counts[type, default: 0] += 1 }
            }
        }
        return counts
    }

    static let hdr10Plus = "HDR Dynamic Metadata SMPTE2094-40 (HDR10+)"

    @Test(
        "HDR10+ (SMPTE 2094-40) on every frame survives a copy into MP4 and MKV: all 10 frames still carry it",
        arguments: [VideoContainer.mp4, .mkv])
    func hdr10PlusCopied(_ container: VideoContainer) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("hdr10plus.mp4")
        #expect(try Self.framesWithSideData(input)[Self.hdr10Plus] == 10)
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: container,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        #expect(!result.notes.messages.contains { $0.contains("HDR10+") })
        let output = try outputPath(result)
        #expect(try Self.framesWithSideData(output)[Self.hdr10Plus] == 10)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    /// Each frame's HDR10+ average MaxRGB, in display order ("" for a frame without HDR10+).
    static func averageMaxRGB(_ path: String) throws -> [String] {
        let result = try MediaTool.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_frames",
                "-show_entries", "frame=side_data_list", "-of", "json", path,
            ])
        let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
        return (object["frames"] as? [[String: Any]] ?? []).map { frame in
            let items = frame["side_data_list"] as? [[String: Any]] ?? []
            let plus = items.first { ($0["side_data_type"] as? String) == hdr10Plus }
            return plus.map { "\($0["average_maxrgb"] ?? "?")" } ?? ""
        }
    }

    @Test("An HEVC re-encode of an HDR10+ clip carries the source's metadata on every picture, each frame's own values")
    func hdr10PlusCarried() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("hdr10plus.mp4")
        let result = try await VideoConverter.convert(
            VideoRequest(
                input: input, container: .mp4, codec: .hevc, crf: 40,
                output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("video re-encoded to hevc"))
        #expect(result.notes.messages.contains("HDR10+ dynamic metadata kept (the source's, picture by picture)"))
        let output = try outputPath(result)
        let source = try Self.averageMaxRGB(input)
        #expect(source.count == 10 && Set(source).count == 10)
        #expect(try Self.averageMaxRGB(output) == source)
        #expect((try Self.framesWithSideData(output)["Mastering display metadata"] ?? 0) >= 1)
        #expect(try MediaTool.decodeErrors(output) == "")
    }

    @Test(
        "An AV1 re-encode, or a cut HEVC one, of an HDR10+ clip says the dynamic metadata was dropped, and keeps HDR10's static metadata",
        arguments: [(VideoContainer.mkv, VideoCodec.av1, false), (.mp4, .hevc, true)])
    func hdr10PlusDropped(_ container: VideoContainer, _ codec: VideoCodec, _ cut: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("hdr10plus.mp4")
        var request = VideoRequest(
            input: input, container: container, codec: codec, crf: 40,
            output: OutputLocation(directory: directory.path))
        if cut { request.start = 0.12 }
        let result = try await VideoConverter.convert(request).result()
        #expect(result.notes.messages.contains("HDR kept"))
        #expect(
            result.notes.messages.contains(
                cut
                    ? "HDR10+ dynamic metadata dropped: a cut's pictures cannot be matched to the source's (HDR10 static metadata kept)"
                    : "HDR10+ dynamic metadata dropped: the AV1 encoder cannot write it (HDR10 static metadata kept)"))
        let output = try outputPath(result)
        let counts = try Self.framesWithSideData(output)
        #expect(counts[Self.hdr10Plus] == nil)
        #expect((counts["Mastering display metadata"] ?? 0) >= 1)
        #expect(try VideoFidelityTests.decodedCounts(output) == [cut ? 7 : 10])
        #expect(try MediaTool.decodeErrors(output) == "")
    }
}
