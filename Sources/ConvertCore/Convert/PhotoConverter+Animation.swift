extension PhotoConverter {
    /// An animated GIF or WebP converted to WebP stays animated: every frame, with its timing,
    /// resized as asked, through libwebp's animation encoder, one canvas at a time. nil when the
    /// request is not that (another output, `--frame`, a size target, a still input).
    static func animatedWebP(
        _ request: PhotoRequest, opened: OpenedPhoto, reporter: ProgressReporter, cancellation: CancellationFlag
    ) throws(ConvertError) -> JobResult? {
        guard request.format == .webp, request.frame == nil, request.targetByteCount == nil,
            opened.format == .gif || opened.format == .webp
        else { return nil }
        let data = try ImageDecoder.readAll(path: request.inputPath)
        guard
            let animation = try AnimatedPicture.open(
                data, format: opened.format, maxPixels: request.maxPixels, path: request.inputPath),
            let summary = animation.summary
        else { return nil }
        if request.strict, case .gif(let gif) = animation, gif.isCutShort {
            throw ConvertError(
                code: .inputTruncated,
                message: "\(request.inputPath) is incomplete: the GIF ends before its last frame does.",
                path: request.inputPath)
        }
        reporter.report(.decoding, 0)
        let plan = ResizePlan(
            sourceWidth: animation.width, sourceHeight: animation.height, resize: request.resize,
            maxLongEdge: request.maxLongEdge)
        try AnimationLimit.check(
            width: max(animation.width, plan.canvasWidth), height: max(animation.height, plan.canvasHeight),
            frames: animation.frameCount, maxPixels: request.maxPixels, path: request.inputPath)
        let padding: Resampler.Padding = request.resize?.padding.map { .color($0) } ?? .transparent
        let writer = try WebPAnimationWriter(
            width: plan.canvasWidth, height: plan.canvasHeight,
            quality: request.quality, lossless: request.lossless)
        try animation.forEachFrame { number, canvas, duration throws(ConvertError) in
            try cancellation.check()
            var frame = Bitmap(
                width: animation.width, height: animation.height, channels: 4, samples: .eight(canvas),
                sourceBitDepth: 8)
            if !plan.isIdentity { frame = try Resampler.apply(plan, to: frame, padding: padding) }
            try writer.add(frame.eightBitSamples, duration: duration)
            reporter.report(.encoding, 0.9 * Double(number + 1) / Double(animation.frameCount))
        }
        let bytes = try writer.finish()
        let output = try writeWhole(bytes, for: request, cancellation: cancellation)
        var notes = ["animation kept (\(summary.description))"]
        if case .gif(let gif) = animation, gif.isCutShort {
            notes.append(
                "the file ends early (an interrupted copy or download): the frames after frame \(gif.frameCount) are missing"
            )
        }
        return JobResult(
            inputPath: request.inputPath, outputs: [output], notes: JobNote.facts(notes), location: .noneFound)
    }
}
