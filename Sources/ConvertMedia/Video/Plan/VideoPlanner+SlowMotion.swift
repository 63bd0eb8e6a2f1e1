import ConvertCore

extension VideoPlanner {
    /// Whether a phone's slow motion is flattened (see ``SlowMotionFlattening``), and the notes
    /// that say what happened to it. A clip without slow motion gets neither.
    /// `cut` says the output starts later or ends earlier than the file; `sound` whether the
    /// output has sound to follow the timeline.
    static func slowMotionDecision(_ choice: SlowMotionChoice, media: MediaSnapshot, cut: Bool, sound: Bool) -> (
        flattening: SlowMotionFlattening?, notes: [String]
    ) {
        let rate = media.captureRate.map { "captured at \(UnitText.decimal($0, 2)) fps" }
        switch (media.slowMotion, choice) {
        case (.segments(let segments), .flatten):
            let flattening = SlowMotionFlattening(segments, captureRate: media.captureRate)
            guard !cut else {
                return (nil, ["slow motion not flattened in a cut: it plays at the file's own (slowed) timing"])
            }
            return (flattening, [flattening.note(sound: sound)])
        case (.segments, .keep), (.segments, .off), (.absent, .keep), (.absent, .off):
            return (nil, [])
        case (.damaged(let why), let choice):
            guard choice == .flatten else { return (nil, []) }
            return (nil, ["slow motion markers not used (\(why)): the clip plays at the file's own timing"])
        case (.absent, .flatten):
            guard let rate else { return (nil, []) }
            return (nil, ["\(rate) for slow motion, with no slowed segments marked: it plays at the file's own timing"])
        }
    }

    /// With `--slow-motion keep`, a Samsung clip's markers carried into the output: its `sefd`
    /// trailer box appended to an MP4 or MOV as it was (the phone finds it at the file's end and
    /// plays the segments slowed again), and a note either way. Left out, with the reason, where
    /// the output has no place for it or a cut moves the timeline its times count in.
    static func keptSlowMotionMarkers(_ choice: SlowMotionChoice, media: MediaSnapshot, format: OutputFormat, cut: Bool)
        -> (trailer: [UInt8]?, notes: [String])
    {
        guard choice == .keep, case .segments = media.slowMotion else { return (nil, []) }
        guard let trailer = media.slowMotionTrailer else {
            return (nil, ["slow motion markers left out: they are not in a trailer offconvert can carry"])
        }
        guard format.isISOBMFF else {
            return (
                nil,
                [
                    "slow motion markers left out: only MP4 and MOV carry Samsung's trailer; it plays at the file's own timing"
                ]
            )
        }
        guard !cut else { return (nil, ["slow motion markers left out: a cut moves the timeline they mark"]) }
        return (trailer, ["slow motion markers kept (Samsung's SEF trailer): a Galaxy plays the segments slowed"])
    }
}
