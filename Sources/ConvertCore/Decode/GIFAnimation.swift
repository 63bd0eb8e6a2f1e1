/// The frames of a GIF as a viewer shows them: each image drawn on the canvas over what the
/// frames before it left (their disposal applied), one canvas at a time, so an animation of
/// thousands of frames holds one picture (two while a "restore previous" frame shows).
///
/// The canvas is the logical screen, grown to hold the first image when it sticks out (as
/// browsers do for a one-frame GIF whose screen is too small); later images are clipped to it.
struct GIFAnimation {
    private let data: [UInt8]
    private let path: String
    private let layout: GIFDecoder.Layout
    /// The canvas every frame is drawn on.
    let width: Int
    let height: Int

    /// Reads the blocks of `data`; a canvas over `maxPixels` (or over the memory this machine can
    /// give) is refused before anything is allocated. nil: no check, for a reader that counts
    /// frames and allocates nothing (`info`).
    init(_ data: [UInt8], maxPixels: Int?, path: String) throws(ConvertError) {
        let layout = try GIFDecoder.layout(data, path: path)
        let first = layout.images[0]
        width = max(layout.screenWidth, first.left + first.width)
        height = max(layout.screenHeight, first.top + first.height)
        if let maxPixels { try PixelLimit.check(width: width, height: height, limit: maxPixels, path: path) }
        self.data = data
        self.path = path
        self.layout = layout
    }

    /// The number of frames.
    var frameCount: Int { layout.images.count }

    /// Whether the file ended (or broke) before its trailer: frames after the last whole one are lost.
    var isCutShort: Bool { !layout.complete }

    /// What is lost of frame `index` in a file cut short, for the note: nil when the frame is
    /// whole, otherwise the share of its pixels the data did not hold (1 when none).
    func missingShare(ofFrame index: Int) -> Double? {
        guard index < layout.images.count, layout.images[index].truncated else { return nil }
        let image = layout.images[index]
        let count = image.width * image.height
        guard count > 0, let (_, decoded) = GIFDecoder.indices(data, of: image) else { return 1 }
        return Double(count - decoded) / Double(count)
    }

    /// The note for a GIF cut short whose frame `index` was converted, worded as for a JPEG or
    /// PNG cut short; nil when the file is whole.
    func cutShortNote(frame index: Int) -> String? {
        guard isCutShort else { return nil }
        let prefix = "the file ends early (an interrupted copy or download)"
        if let share = missingShare(ofFrame: index), share > 0 {
            let percent = max(1, Int((share * 100).rounded()))
            let image = layout.images[index]
            return image.interlaced
                ? "\(prefix): \(percent)% of the picture's rows are missing (left transparent)"
                : "\(prefix): the bottom \(percent)% of the picture is missing (left transparent)"
        }
        if frameCount == 1 { return "\(prefix): the picture is whole, what followed it is missing" }
        return "\(prefix): the frames after frame \(frameCount) may be missing"
    }

    /// How long each frame shows, in milliseconds: a stored delay of 0 or 1 hundredth shows for
    /// 100 ms, as in every browser (the fastest "as fast as possible" GIFs would otherwise flash).
    var durations: [Int] { layout.images.map { $0.delay <= 1 ? 100 : $0.delay * 10 } }

    /// Calls `body` with each frame's number, its canvas (8-bit RGBA) and duration, up to and
    /// including frame `last` (every frame when nil).
    func forEachFrame(
        through last: Int? = nil, _ body: (Int, [UInt8], Int) throws(ConvertError) -> Void
    ) throws(ConvertError) {
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        let durations = durations
        for (number, image) in layout.images.enumerated() {
            if let last, number > last { return }
            let saved = image.disposal == 3 ? canvas : nil
            try draw(image, on: &canvas)
            try body(number, canvas, durations[number])
            if image.disposal == 2 {
                clear(image, on: &canvas)
            } else if let saved {
                canvas = saved
            }
        }
    }

    private var damaged: ConvertError {
        ConvertError(code: .inputCorrupt, message: "\(path) is damaged: a GIF frame could not be decoded.", path: path)
    }

    /// The part of `image` on the canvas, as (canvas x, canvas y, width, height).
    private func visible(_ image: GIFDecoder.ImageBlock) -> (x: Int, y: Int, width: Int, height: Int) {
        let right = min(width, image.left + image.width)
        let bottom = min(height, image.top + image.height)
        return (image.left, image.top, max(0, right - image.left), max(0, bottom - image.top))
    }

    private func draw(_ image: GIFDecoder.ImageBlock, on canvas: inout [UInt8]) throws(ConvertError) {
        let area = visible(image)
        guard area.width > 0, area.height > 0 else { return }
        // An image far larger than the canvas (a damaged size field) is refused, not decoded
        // into gigabytes of indices only to be clipped.
        guard image.width <= width * 2 + 16, image.height <= height * 2 + 16,
            let (indices, decoded) = GIFDecoder.indices(data, of: image)
        else { throw damaged }
        let palette = image.palette
        // The stored row of each display row: in a truncated image, only the pixels its data
        // held are drawn (the rest stays as the canvas was: transparent on the first frame, as
        // browsers and libnsgif leave a GIF still loading).
        let storedRow: [Int]
        if image.truncated, image.interlaced {
            var inverse = [Int](repeating: 0, count: image.height)
            for (stored, display) in GIFDecoder.interlacedRows(image.height).enumerated() { inverse[display] = stored }
            storedRow = inverse
        } else {
            storedRow = []
        }
        for row in 0..<area.height {
            var columns = area.width
            if image.truncated {
                let stored = image.interlaced ? storedRow[row] : row
                columns = min(area.width, max(0, decoded - stored * image.width))
            }
            for column in 0..<columns {
                let index = Int(indices[row * image.width + column])
                guard index != image.transparentIndex, index * 3 + 2 < palette.count else { continue }
                let target = ((area.y + row) * width + area.x + column) * 4
                canvas[target] = palette[index * 3]
                canvas[target + 1] = palette[index * 3 + 1]
                canvas[target + 2] = palette[index * 3 + 2]
                canvas[target + 3] = 255
            }
        }
    }

    /// Disposal 2: the frame's area back to transparent (browsers clear to transparent, not
    /// to the background colour the screen descriptor names).
    private func clear(_ image: GIFDecoder.ImageBlock, on canvas: inout [UInt8]) {
        let area = visible(image)
        for row in 0..<area.height {
            let start = ((area.y + row) * width + area.x) * 4
            canvas.replaceSubrange(start..<start + area.width * 4, with: repeatElement(0, count: area.width * 4))
        }
    }
}
