import Foundation
import Testing

@testable import ConvertMedia

/// x264's pass-1 statistics tell how hard the picture was to code: their average quantizer.
@Suite("x264 statistics: the average quantizer")
struct StatsFileQuantizerTests {
    @Test("the frames' q: values are averaged; the options line is skipped; no statistics is nil")
    func average() throws {
        let directory = try Fixtures.temporaryDirectory("stats-q")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stats = try StatsFile(destination: directory.appendingPathComponent("clip.mp4").path)
        #expect(stats.averageQuantizer() == nil)
        let text = """
            #options: 640x272 fps=25/1 q:99.00 rc=abr
            in:0 out:0 type:I dur:2 cpbdur:2 q:42.00 aq:33.88 tex:6269 mv:2584 misc:5979 imb:680 pmb:0 smb:0 d:- ref:;
            in:2 out:1 type:P dur:2 cpbdur:2 q:30.00 aq:36.70 tex:363 mv:707 misc:338 imb:47 pmb:38 smb:595 d:- ref:0 ;
            in:1 out:2 type:b dur:2 cpbdur:2 q:33.00 aq:36.70 tex:363 mv:707 misc:338 imb:47 pmb:38 smb:595 d:- ref:0 ;

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: stats.path))
        #expect(stats.averageQuantizer() == 35)
        stats.remove()
        #expect(!FileManager.default.fileExists(atPath: stats.path))
    }
}
