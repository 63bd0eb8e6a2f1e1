import ConvertCore
import FoundationEssentials

/// What files record in codes, said in words for people: auxiliary-image URNs, ISO 6709
/// coordinates. `--json` keeps the codes; text output uses these.
package enum PlainWords {
    /// Known auxiliary image types by URN.
    private static let auxiliaryNames: [String: String] = [
        "urn:com:apple:photo:2020:aux:hdrgainmap": "HDR gain map (Apple)",
        "urn:com:samsung:photo:2024:aux:hdrgainmap": "HDR gain map (Samsung)",
        "urn:com:photo:aux:hdrgainmap": "HDR gain map (ISO 21496-1)",
        "urn:mpeg:hevc:2015:auxid:1": "transparency",
        "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha": "transparency",
        "urn:mpeg:hevc:2015:auxid:2": "depth",
        "urn:mpeg:mpegB:cicp:systems:auxiliary:depth": "depth",
        "urn:com:apple:photo:2018:aux:portraiteffectsmatte": "portrait matte (Apple)",
        "urn:com:apple:photo:2019:aux:semanticskinmatte": "skin matte (Apple)",
        "urn:com:apple:photo:2019:aux:semantichairmatte": "hair matte (Apple)",
        "urn:com:apple:photo:2019:aux:semanticteethmatte": "teeth matte (Apple)",
        "urn:com:apple:photo:2020:aux:semanticskymatte": "sky matte (Apple)",
    ]

    /// An auxiliary image's type in words: `urn:com:apple:photo:2020:aux:hdrgainmap` →
    /// "HDR gain map (Apple)". A name already in words (`depth`) stays; an unknown URN is
    /// shortened to its last part.
    package static func auxiliary(_ type: String) -> String {
        if let name = auxiliaryNames[type] { return name }
        guard type.hasPrefix("urn:") else { return type }
        let last = type.split(separator: ":").last.map(String.init) ?? type
        return "other (\(last))"
    }

    /// An ISO 6709 point (`+51.5334-000.1255+026.756/`) in words: `51.5334° N, 0.1255° W,
    /// 26.8 m`; nil when it does not parse (the caller then shows it as recorded).
    package static func coordinates(_ iso6709: String) -> String? {
        var numbers: [Double] = []
        var current = ""
        for character in iso6709 {
            if character == "+" || character == "-" || character == "/" {
                if let value = Double(current) { numbers.append(value) } else if !current.isEmpty { return nil }
                current = character == "/" ? "" : String(character)
                if character == "/" { break }
            } else if character.isNumber || character == "." {
                current.append(character)
            } else {
                return nil
            }
        }
        if let value = Double(current) { numbers.append(value) }
        // Only the decimal-degrees form phones write (±DD.DDDD±DDD.DDDD[±AAA.AAA]/).
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        let latitude = fixed(abs(numbers[0]), digits: 4) + "° " + (numbers[0] < 0 ? "S" : "N")
        let longitude = fixed(abs(numbers[1]), digits: 4) + "° " + (numbers[1] < 0 ? "W" : "E")
        var text = latitude + ", " + longitude
        if numbers.count >= 3 { text += ", " + fixed(numbers[2], digits: 0) + " m" }
        return text
    }
}
