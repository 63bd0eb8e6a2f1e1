import ConvertCore
import Foundation
import Testing

@testable import OffconvertCLI

/// Options are declared once as typed values (`Option<Int>`, `Option<EncoderPreset>`, `Flag`) and
/// read by value: the same declaration gives `--help` its line, the parser its name and the
/// command its checked value.
@Suite("Typed options")
struct TypedOptionsTests {
    private func parse(_ arguments: [String], _ options: [OptionSpec]) throws -> ParsedArguments {
        try ArgumentParser.parse(arguments, for: CommandSpec(name: "t", abstract: "", options: options))
    }

    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("a whole number in its range, absent, defaulted and refused with the range named")
    func integers() throws {
        let quality = PhotoWork.quality
        #expect(try parse(["--quality", "70"], [quality.spec]).value(quality) == 70)
        #expect(try parse(["--quality=1"], [quality.spec]).value(quality) == 1)
        #expect(try parse([], [quality.spec]).value(quality) == nil)
        #expect(try parse([], [quality.spec]).value(quality, default: 85) == 85)
        let refused = message { _ = try parse(["--quality", "101"], [quality.spec]).value(quality) }
        #expect(refused == "The value '101' is invalid for '--quality': expected a whole number from 1 to 100.")
        #expect(message { _ = try parse(["--quality=x"], [quality.spec]).value(quality) }.contains("from 1 to 100"))
    }

    @Test("a choice is read in any letter case into its Swift value; a typo gets a guess")
    func choices() throws {
        let preset = SendToWindowsCommand.preset
        #expect(try parse(["--preset", "VeryFast"], [preset.spec]).value(preset) == .veryfast)
        let typo = message { _ = try parse(["--preset", "slowr"], [preset.spec]).value(preset) }
        #expect(typo.contains("expected one of ultrafast, superfast"), "\(typo)")
        #expect(typo.contains("Did you mean 'slow"), "\(typo)")
        let depth = ConvertCommand.depth
        #expect(try parse(["--depth", "10"], [depth.spec]).value(depth) == .ten)
        #expect(
            message { _ = try parse(["--depth", "12"], [depth.spec]).value(depth) }.contains("expected one of 8, 10"))
        // A container's codecs only: WebM takes VP9 and AV1.
        let webm = VideoOptions.codec(for: .webm)
        #expect(try parse(["-c", "av1"], [webm.spec]).value(webm) == .av1)
        #expect(
            message { _ = try parse(["-c", "h264"], [webm.spec]).value(webm) }.contains("expected one of vp9, av1"))
    }

    @Test("sizes, times and frame rates parse to numbers with their units")
    func units() throws {
        let target = CompressCommand.target
        #expect(try parse(["-t", "25MB"], [target.spec]).value(target) == 25_000_000)
        #expect(try parse(["-t", "8MiB"], [target.spec]).value(target) == 8_388_608)
        #expect(message { _ = try parse(["-t", "lots"], [target.spec]).value(target) }.contains("expected a size"))
        let start = VideoOptions.start
        #expect(try parse(["--start", "1:02.5"], [start.spec]).value(start) == 62.5)
        #expect(try parse(["--start", "1:00:00"], [start.spec]).value(start) == 3600)
        #expect(message { _ = try parse(["--start", "1:60"], [start.spec]).value(start) }.contains("mm:ss"))
        let fps = VideoOptions.rawFrameRate
        #expect(try parse(["--fps", "29.97"], [fps.spec]).value(fps) == 29.97)
        #expect(message { _ = try parse(["--fps", "0"], [fps.spec]).value(fps) }.contains("above 0"))
    }

    @Test("flags, and the text an option was given as, for messages that quote it")
    func flagsAndText() throws {
        let parsed = try parse(
            ["--json", "--margin", "2in"], [BatchOptions.jsonFlag.spec, ImagesToPdfCommand.margin.spec])
        #expect(parsed.has(BatchOptions.jsonFlag))
        #expect(!parsed.has(BatchOptions.quietFlag))
        #expect(try parsed.value(ImagesToPdfCommand.margin) == 144)
        #expect(parsed.text(ImagesToPdfCommand.margin) == "2in")
    }

    @Test("every command's options have distinct names, and a shared option has one declaration's parser")
    func oneDeclaration() {
        for command in Commands.all {
            let names = command.spec.options.map(\.long)
            #expect(Set(names).count == names.count, "\(command.spec.name) lists an option twice: \(names)")
            let shorts = command.spec.options.compactMap(\.short)
            #expect(Set(shorts).count == shorts.count, "\(command.spec.name) reuses a short name: \(shorts)")
        }
        // A helping() copy changes the help line only.
        let sized = CompressCommand.sizedDuration
        #expect(sized.long == VideoOptions.duration.long && sized.valueName == VideoOptions.duration.spec.valueName)
        #expect(sized.help != VideoOptions.duration.spec.help)
    }
}
