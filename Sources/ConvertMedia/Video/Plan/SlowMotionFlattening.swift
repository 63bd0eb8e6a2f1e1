import ConvertCore

/// A Samsung slow-motion clip played as the phone plays it, as androidx/media's Transformer
/// flattens one (SefSlowMotionFlattener for the pictures, SegmentSpeedProvider for the sound).
///
/// The phone stores such a clip at 30 fps whatever it filmed at, so a player that does not know
/// the segments shows all of it slowed by capture rate ÷ 30. The phone plays the parts outside
/// the segments at normal speed (the file's time × 30 ÷ capture rate, keeping one frame in
/// capture rate ÷ 30) and each segment `speedDivisor` times slower than that; the sound follows
/// the same timeline, its tempo changed without changing its pitch. Pure arithmetic: the
/// filters built here do the work.
struct SlowMotionFlattening: Sendable, Equatable {
    /// A part of the file's timeline, in seconds, and how many times slower than normal it plays.
    struct Part: Sendable, Equatable {
        var start: Double
        var end: Double
        var speedDivisor: Int
    }

    /// The frame rate the phone stores slow motion at, and the rate of the flattened output.
    static let storedFrameRate = 30.0

    /// The slowed segments, in seconds of the file's timeline.
    var segments: [Part]
    /// The rate the clip was filmed at, when the file says it.
    var captureRate: Double?

    /// Output seconds per second of the file outside the segments: 30 ÷ capture rate.
    var normalScale: Double {
        guard let captureRate, captureRate > Self.storedFrameRate else { return 1 }
        return Self.storedFrameRate / captureRate
    }

    init(_ segments: SlowMotionSegments, captureRate: Double?) {
        self.segments = segments.segments.map {
            Part(
                start: Double($0.startMilliseconds) / 1000, end: Double($0.endMilliseconds) / 1000,
                speedDivisor: $0.speedDivisor)
        }
        self.captureRate = captureRate
    }

    /// Where a moment `time` (seconds of the file) lands in the output.
    func outputTime(_ time: Double) -> Double {
        var stretched = time
        for part in segments {
            stretched += Double(part.speedDivisor - 1) * min(max(time - part.start, 0), part.end - part.start)
        }
        return stretched * normalScale
    }

    /// How many frames the flattened output of `duration` seconds of the file (at `frameRate`)
    /// has, about: each part keeps its frames up to the 30 a second ``videoFilter`` leaves, or
    /// all of them where it keeps every frame. What a size target budgets its frames by.
    func outputFrames(duration: Double, frameRate: Double) -> Double {
        var parts: [(length: Double, speedDivisor: Int)] = []
        var position = 0.0
        for part in segments where part.start < duration {
            parts.append((max(part.start - position, 0), 1))
            parts.append((min(part.end, duration) - part.start, part.speedDivisor))
            position = min(part.end, duration)
        }
        parts.append((max(duration - position, 0), 1))
        return parts.reduce(0) { total, part in
            let slowed = normalScale * Double(part.speedDivisor)
            // Mirrors the filter: a part is thinned only when the clip was captured fast and the
            // part is not slowed enough to need every frame.
            let kept = normalScale < 1 && slowed < 1 ? min(frameRate, Self.storedFrameRate * slowed) : frameRate
            return total + part.length * kept
        }
    }

    /// The video filters: every frame re-timed by ``outputTime(_:)``, then (when the clip was
    /// captured faster than it is stored) only the frames at least a 30th of a second after the
    /// last one kept, as the phone shows them, and every frame of a segment slowed enough to need
    /// them all (as androidx keeps all temporal layers there). No frame is re-timed to a grid or
    /// repeated, so each one's time in the output is exactly ``outputTime(_:)`` of its time in the
    /// file.
    var videoFilter: String {
        var terms = ["T"]
        for part in segments {
            terms.append("\(part.speedDivisor - 1)*clip(T-\(part.start)\\,0\\,\(part.end - part.start))")
        }
        let retime = "setpts=\(normalScale)*(\(terms.joined(separator: "+")))/TB"
        // 5% under a frame's time, so frames that are a 30th of a second apart all stay.
        let spacing = 0.95 / Self.storedFrameRate
        let whole = segments.filter { normalScale * Double($0.speedDivisor) >= 1 }.map {
            "between(t\\,\(outputTime($0.start))\\,\(outputTime($0.end)))"
        }
        let picks = ["isnan(prev_selected_t)", "gte(t-prev_selected_t\\,\(spacing))"] + whole
        let thin = "select=" + picks.joined(separator: "+")
        return normalScale < 1 ? retime + "," + thin : retime
    }

    /// The sound's filters: the timeline cut into the normal and slowed parts, each part's tempo
    /// changed (`atempo`, which keeps the pitch, as androidx's Sonic does) so that it lasts as
    /// long as its pictures, then joined again. `duration` is the sound's length in seconds.
    func audioFilter(duration: Double?) -> String {
        var cuts: [(start: Double, end: Double?, tempo: Double)] = []
        var position = 0.0
        for part in segments {
            if let duration, part.start >= duration { break }
            if part.start > position { cuts.append((position, part.start, 1 / normalScale)) }
            cuts.append((part.start, part.end, 1 / (normalScale * Double(part.speedDivisor))))
            position = part.end
        }
        if duration.map({ position < $0 }) ?? true { cuts.append((position, nil, 1 / normalScale)) }
        let labels = cuts.indices.map { "[slow\($0)]" }
        var chains = ["asplit=\(cuts.count)" + labels.joined()]
        for (index, cut) in cuts.enumerated() {
            let end = cut.end.map { ":end=\($0)" } ?? ""
            chains.append(
                "\(labels[index])atrim=start=\(cut.start)\(end),asetpts=PTS-STARTPTS,"
                    + Self.tempoChain(cut.tempo) + "[part\(index)]")
        }
        chains.append(cuts.indices.map { "[part\($0)]" }.joined() + "concat=n=\(cuts.count):v=0:a=1")
        return chains.joined(separator: ";")
    }

    /// `atempo` filters for `tempo`: FFmpeg 5.1's takes 0.5...100 each, so a larger change is a
    /// chain of them.
    static func tempoChain(_ tempo: Double) -> String {
        var remaining = tempo
        var steps: [Double] = []
        while remaining < 0.5 && steps.count < 16 {
            steps.append(0.5)
            remaining /= 0.5
        }
        while remaining > 100 && steps.count < 16 {
            steps.append(100)
            remaining /= 100
        }
        steps.append(remaining)
        return steps.map { "atempo=\($0)" }.joined(separator: ",")
    }

    /// The segments and capture rate, as ``MediaProbe`` describes them.
    var info: SlowMotionInfo {
        SlowMotionInfo(
            captureFramesPerSecond: captureRate,
            segments: segments.map { .init(startSeconds: $0.start, endSeconds: $0.end, speedDivisor: $0.speedDivisor) })
    }

    /// The note that says what was done: "slow motion played as the phone plays it: 0.09–0.88 s
    /// at 1/2, 1.26–1.97 s at 1/8, captured at 240 fps; the sound follows ...".
    func note(sound: Bool) -> String {
        let said = "slow motion played as the phone plays it: \(info.summary)"
        return sound ? said + "; the sound follows the same timeline, its pitch kept" : said
    }
}
