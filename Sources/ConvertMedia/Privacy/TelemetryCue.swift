/// The positions in a subtitle cue that is a drone's telemetry: DJI writes one cue a frame (or a
/// second) into an SRT beside the clip, and that SRT is often muxed in as a subtitle track. The
/// layouts, as DJI's drones write them:
///
/// - Mini 3 / Mini 4 / Air 2S / Mavic 3: `[latitude: 41.424724] [longitude: 2.234156]
///   [rel_alt: 1.300 abs_alt: 132.860]` or `[altitude: 117.000000]`;
/// - Phantom 3/4: `HOME(131.1660,-25.2088) 2017.07.29 15:18:50` then
///   `GPS(131.1660,-25.2088,14) BAROMETER:0.0`;
/// - Mavic Pro: `F/2.8, SS 320, ISO 100, EV 0, GPS (113.958, 22.543, 18), D 20m, H 9m`.
///
/// A position is the number after `latitude`, `longitude`, `altitude` or `abs_alt` and its
/// colon, and the numbers inside `GPS(...)` or `HOME(...)`. The height above the take-off
/// point (`rel_alt`, `H 9m`) and the distance from it (`D 20m`) place nothing, and stay.
/// Removing blanks a position's characters with spaces, so a cue keeps its length (and an MP4
/// sample its size).
enum TelemetryCue {
    /// The keys whose value is a position, as DJI spells them; the first two place the cue.
    private static let keys: [[UInt8]] = ["latitude", "longitude", "altitude", "abs_alt"].map { Array($0.utf8) }
    /// The calls whose arguments are positions.
    private static let calls: [[UInt8]] = ["GPS", "HOME"].map { Array($0.utf8) }
    /// The longest run read for a call's arguments: three numbers and their separators.
    private static let longestArguments = 64

    /// The byte ranges of the positions in `cue`, and whether they place it on the map (a
    /// latitude, a longitude or a `GPS(...)`/`HOME(...)` fix, not an altitude alone).
    static func positions(in cue: [UInt8]) -> (ranges: [Range<Int>], placed: Bool) {
        var ranges: [Range<Int>] = []
        var placed = false
        var index = 0
        while index < cue.count {
            if let (found, next, places) = keyValue(in: cue, at: index) ?? callArguments(in: cue, at: index) {
                ranges += found
                placed = placed || places
                index = next
            } else {
                index += 1
            }
        }
        return (ranges, placed)
    }

    /// Whether `cue` is telemetry: it gives a latitude, a longitude or a `GPS(...)` fix (a
    /// subtitle that only says "altitude: 30" is not).
    static func isTelemetry(_ cue: [UInt8]) -> Bool { positions(in: cue).placed }

    /// `cue` with its positions blanked (spaces), the same length.
    static func blanked(_ cue: [UInt8]) -> [UInt8] {
        var out = cue
        for range in positions(in: cue).ranges {
            for index in range { out[index] = 0x20 }
        }
        return out
    }

    /// A `key: value` at `index` (a key of ``keys`` not preceded by a letter, optional spaces,
    /// a colon, optional spaces, a number): the number's range, where to go on, and whether
    /// the key places the cue (latitude, longitude).
    private static func keyValue(in cue: [UInt8], at index: Int) -> ([Range<Int>], Int, Bool)? {
        guard index == 0 || !isLetter(cue[index - 1]) else { return nil }
        for (position, key) in keys.enumerated() where cue[index...].starts(with: key) {
            var at = skipSpaces(cue, from: index + key.count)
            guard at < cue.count, cue[at] == UInt8(ascii: ":") else { continue }
            at = skipSpaces(cue, from: at + 1)
            let end = numberEnd(cue, from: at)
            guard end > at, cue[at..<end].contains(where: isDigit) else { continue }
            return ([at..<end], end, position < 2)
        }
        return nil
    }

    /// `GPS(` or `HOME(` at `index` (optionally a space before the parenthesis) with two or three
    /// comma-separated numbers: the numbers' ranges, where to go on, and true (a fix places it).
    private static func callArguments(in cue: [UInt8], at index: Int) -> ([Range<Int>], Int, Bool)? {
        guard index == 0 || !isLetter(cue[index - 1]) else { return nil }
        for call in calls where cue[index...].starts(with: call) {
            var at = skipSpaces(cue, from: index + call.count)
            guard at < cue.count, cue[at] == UInt8(ascii: "(") else { continue }
            at += 1
            var numbers: [Range<Int>] = []
            while at < min(cue.count, index + call.count + longestArguments) {
                at = skipSpaces(cue, from: at)
                let end = numberEnd(cue, from: at)
                guard end > at, cue[at..<end].contains(where: isDigit) else { break }
                numbers.append(at..<end)
                at = skipSpaces(cue, from: end)
                guard at < cue.count, cue[at] == UInt8(ascii: ",") else { break }
                at += 1
            }
            guard numbers.count >= 2, at < cue.count, cue[at] == UInt8(ascii: ")") else { continue }
            return (numbers, at + 1, true)
        }
        return nil
    }

    private static func skipSpaces(_ cue: [UInt8], from start: Int) -> Int {
        var at = start
        while at < cue.count, cue[at] == 0x20 || cue[at] == 0x09 { at += 1 }
        return at
    }

    /// Where a number starting at `start` (sign, digits, one decimal point) ends.
    private static func numberEnd(_ cue: [UInt8], from start: Int) -> Int {
        var at = start
        if at < cue.count, cue[at] == UInt8(ascii: "-") || cue[at] == UInt8(ascii: "+") { at += 1 }
        while at < cue.count, isDigit(cue[at]) || cue[at] == UInt8(ascii: ".") { at += 1 }
        return at
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_")
    }
}
