import ConvertCore
import ConvertMedia
import Foundation
import OffconvertCLI

extension CapabilitiesCommand {
    /// The `--json` shape.
    struct Report: Encodable {
        struct Encoder: Encodable {
            var name: String
            var codec: String
            var hardware: Bool
            var usable: Bool
        }

        var photoOutputs: [String: Bool]
        var encoders: [Encoder]
        var toneMapping: Bool
    }

    static func runWithEngine(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let video = VideoConverter.capabilities()
        let photos = PhotoFormat.allCases.filter { !$0.isReadOnly }
        let report = Report(
            photoOutputs: Dictionary(
                uniqueKeysWithValues: photos.map { ($0.fileExtension, PhotoConverter.canEncode($0)) }),
            encoders: video.encoders.map {
                Report.Encoder(name: $0.name, codec: $0.codec, hardware: $0.isHardware, usable: $0.isUsable)
            },
            toneMapping: video.canToneMap)
        if arguments.has(Self.json) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            console.out(String(decoding: try encoder.encode(report), as: UTF8.self))
            return ExitCode.success
        }
        func yes(_ value: Bool) -> String { value ? "yes" : "no" }
        var lines = ["Photo outputs:"]
        for format in photos {
            lines.append(
                "  \(format.fileExtension.padding(toLength: 6, withPad: " ", startingAt: 0)) \(yes(PhotoConverter.canEncode(format)))"
            )
        }
        lines.append("Software encoders:")
        for encoder in video.encoders where !encoder.isHardware {
            lines.append(
                "  \(encoder.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(encoder.codec.padding(toLength: 5, withPad: " ", startingAt: 0)) \(yes(encoder.isUsable))"
            )
        }
        lines.append("Hardware encoders:")
        for encoder in video.encoders where encoder.isHardware {
            lines.append(
                "  \(encoder.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(encoder.codec.padding(toLength: 5, withPad: " ", startingAt: 0)) \(encoder.isUsable ? "yes" : "no (no device)")"
            )
        }
        lines.append("HDR tone mapping: \(yes(video.canToneMap))")
        console.out(lines.joined(separator: "\n"))
        return ExitCode.success
    }
}
