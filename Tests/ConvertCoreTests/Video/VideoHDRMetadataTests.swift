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
        let result = try MediaTool.run("ffprobe", ["-v", "error", "-read_intervals", "%+#1", "-select_streams", "v:0",
                                                   "-show_frames", "-show_entries", "frame=side_data_list", "-of", "json", path])
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

    @Test("x265 and SVT-AV1 re-encodes of an SEI-only HDR10 clip keep mastering display and MaxCLL/MaxFALL",
          arguments: [(VideoContainer.mp4, VideoCodec.hevc), (.mkv, .av1)])
    func seiOnly(_ container: VideoContainer, _ codec: VideoCodec) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.generated("pq-hevc.mp4")
        // The source has no mdcv/clli box: ffprobe sees the values only in the frames.
        #expect(try MediaTool.probe(input).video?.sideDataTypes.isEmpty == true)
        let result = try await VideoConverter.convert(VideoRequest(input: input, container: container, codec: codec, crf: 40,
                                                                   output: OutputLocation(directory: directory.path))).result()
        #expect(result.notes.contains("HDR kept"))
        let side = try Self.firstFrameSideData(try outputPath(result))
        let mastering = try #require(side["Mastering display metadata"])
        #expect(abs(Self.ratio(mastering["max_luminance"]) - 1000) < 1)
        #expect(abs(Self.ratio(mastering["green_x"]) - 0.265) < 0.001)
        #expect(abs(Self.ratio(mastering["red_y"]) - 0.32) < 0.001)
        #expect(abs(Self.ratio(mastering["white_point_x"]) - 0.3127) < 0.001)
        let light = try #require(side["Content light level metadata"])
        #expect((light["max_content"] as? NSNumber)?.intValue == 1000)
        #expect((light["max_average"] as? NSNumber)?.intValue == 400)
        #expect(!result.notes.contains { $0.contains("HDR10+") })
    }
}
