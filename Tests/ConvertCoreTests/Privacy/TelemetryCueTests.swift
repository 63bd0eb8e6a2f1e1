import Foundation
import Testing

@testable import ConvertMedia

/// Issue #54: a DJI drone's telemetry subtitles are a location. The cue layouts are DJI's, as
/// public parsers' sample files show them; a film's subtitles are not telemetry.
@Suite("Privacy: DJI telemetry cues")
struct TelemetryCueTests {
    @Test(
        "each DJI layout: its positions blanked, the rest and the length kept",
        arguments: [
            (
                "[fnum: 1.7] [latitude: 59.302335] [longitude: 18.203059] [rel_alt: 1.300 abs_alt: 132.860] [ct: 5310]",
                "[fnum: 1.7] [latitude:          ] [longitude:          ] [rel_alt: 1.300 abs_alt:        ] [ct: 5310]"
            ),
            (
                "[focal_len : 240] [latitude: 41.424724] [longitude: 2.234156] [altitude: 117.000000] </font>",
                "[focal_len : 240] [latitude:          ] [longitude:         ] [altitude:           ] </font>"
            ),
            (
                "HOME(131.1660,-25.2088) 2017.07.29 15:18:50\nGPS(131.1660,-25.2088,14) BAROMETER:0.0",
                "HOME(        ,        ) 2017.07.29 15:18:50\nGPS(        ,        ,  ) BAROMETER:0.0"
            ),
            (
                "F/2.8, SS 320, ISO 100, EV 0, GPS (113.958, 22.543, 18), D 20m, H 9m, H.S 0.00m/s",
                "F/2.8, SS 320, ISO 100, EV 0, GPS (       ,       ,   ), D 20m, H 9m, H.S 0.00m/s"
            ),
        ])
    func layouts(cue: String, blanked: String) {
        let bytes = Array(cue.utf8)
        #expect(TelemetryCue.isTelemetry(bytes))
        #expect(String(decoding: TelemetryCue.blanked(bytes), as: UTF8.self) == blanked)
        #expect(!TelemetryCue.isTelemetry(TelemetryCue.blanked(bytes)))
    }

    @Test(
        "a film's subtitles are not telemetry",
        arguments: [
            "Hello", "Altitude: 5000 feet", "The GPS (it was off) said nothing", "altitude: 30",
            "[Music playing]", "Turn on GPS(now), please", "relatitude: 5",
        ])
    func ordinary(cue: String) {
        #expect(!TelemetryCue.isTelemetry(Array(cue.utf8)))
    }
}
