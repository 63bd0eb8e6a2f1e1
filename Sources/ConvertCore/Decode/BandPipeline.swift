/// The tiles of a banded grid (``HeifYCbCrDecoder/Bands``), decoded by a pool of workers that
/// take them one at a time in output order, while the caller encodes the bands as they complete.
///
/// A worker never waits at the end of a band for the others (a band of 9 tiles on 2 workers
/// would leave one idle for a tenth of it): it goes on to the next band's tiles, up to one band
/// ahead of the band being encoded, so that at most two bands' planes exist at once. Each
/// worker keeps one libde265 decoder for all its tiles.
///
/// The workers are helpers of ``WorkerPool/current``. The caller does not count on them starting:
/// while the band it asks for still has tiles nobody took, it decodes them itself (with a decoder
/// of its own), so the pipeline completes even when every helper is busy with other work.
///
/// `@unchecked Sendable`: every stored `var` is read and written with `condition` held, except
/// `callerDecoder` and `callerMappings`, which only the thread asking for bands touches.
final class BandPipeline: @unchecked Sendable {
    private let plan: HeifYCbCrDecoder.Plan
    private let bytes: HeifYCbCrDecoder.TileBytes
    private let cancellation: CancellationFlag
    private let tiles: TileCounter?
    /// Each band's tiles, grid position and size, in output order.
    private let regions: [(tiles: HeifYCbCrDecoder.TileRegion, width: Int, height: Int)]
    /// Every tile in the order the workers take them: band by band, in output order.
    private let order: [(band: Int, tile: Int)]
    private let condition = ThreadCondition()
    private var workers: WorkerPool.Batch?

    private var next = 0
    /// Bands before this one are encoded and freed.
    private var released = 0
    private var images: [YCbCr420Image?]
    private var remaining: [Int]
    /// Each band's YCbCr signalling, once its first tile is decoded.
    private var signalling: [(fullRange: Bool, matrix: Int)?]
    private var failed = false
    private var tileFailed = false
    /// The decoder the caller decodes tiles with while it waits for a band, made when first needed.
    private var callerDecoder: HEVCDecoder?
    private var callerMappings: [Bool: SampleMapping?] = [:]

    /// Starts `threads` workers (at least one) on `plan`'s tiles, cut into `bands`; `tiles` counts
    /// each tile decoded.
    init(
        _ plan: HeifYCbCrDecoder.Plan, bytes: HeifYCbCrDecoder.TileBytes, bands: HeifYCbCrDecoder.Bands, threads: Int,
        cancellation: CancellationFlag, tiles: TileCounter? = nil
    ) {
        self.plan = plan
        self.bytes = bytes
        self.cancellation = cancellation
        self.tiles = tiles
        let regions = (0..<bands.count).map { bands.region($0) }
        self.regions = regions
        order = regions.enumerated().flatMap { band, region in region.tiles.tiles.map { (band, $0) } }
        images = Array(repeating: nil, count: bands.count)
        remaining = regions.map(\.tiles.tiles.count)
        signalling = Array(repeating: nil, count: bands.count)
        let workers = WorkerPool.current.start(iterations: max(1, min(threads, order.count))) { [self] _ in work() }
        condition.lock()
        self.workers = workers
        condition.unlock()
    }

    /// Band `index`'s decoded planes and their signalling, once all its tiles are in; nil when a
    /// tile failed to decode, tiles disagree on their signalling, or the job was cancelled (the
    /// workers then stop). Bands are asked for in order, each once.
    func band(_ index: Int) -> (image: YCbCr420Image, signalling: (fullRange: Bool, matrix: Int))? {
        condition.lock()
        defer { condition.unlock() }
        // The caller waits only while every tile left of its band is being decoded by a worker,
        // which wakes it when done; so it also sees a cancellation.
        while remaining[index] > 0 && !failed && !cancellation.isCancelled {
            // A tile of this band that no worker took yet: decode it here rather than wait.
            if let (band, tile, image) = takeNow(of: index) {
                condition.unlock()
                decodeHere(band, tile, image)
                condition.lock()
            } else {
                condition.wait()
            }
        }
        guard !failed, !cancellation.isCancelled, let image = images[index], let signalling = signalling[index]
        else { return nil }
        return (image, signalling)
    }

    /// Decodes one tile on the caller's thread, `condition` not held.
    private func decodeHere(_ band: Int, _ tile: Int, _ image: YCbCr420Image) {
        if callerDecoder == nil { callerDecoder = try? HEVCDecoder(workerThreads: 0) }
        guard let decoder = callerDecoder else { return fail() }
        finished(band, decode(tile, of: band, into: image, with: decoder, mappings: &callerMappings))
    }

    /// Whether a tile did not decode cleanly to the grid's tile (a damaged stream), once
    /// ``band(_:)`` gave nil.
    var hadDamagedTile: Bool {
        condition.lock()
        defer { condition.unlock() }
        return tileFailed
    }

    /// Frees band `index` (after its encode), letting the workers start the band after the next.
    func release(_ index: Int) {
        condition.lock()
        images[index] = nil
        released = index + 1
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the workers (when the caller gives up early) and waits until they are all done:
    /// called before the caller returns, whatever happened.
    func finish() {
        condition.lock()
        if next < order.count { failed = true }
        let workers = self.workers
        condition.broadcast()
        condition.unlock()
        // A worker that never started runs here and finds nothing left to take.
        workers?.join()
    }

    private func work() {
        var decoder: HEVCDecoder?
        var mappings: [Bool: SampleMapping?] = [:]
        while let (band, tile, image) = take() {
            if decoder == nil { decoder = try? HEVCDecoder(workerThreads: 0) }
            guard let decoder else { return fail() }
            finished(band, decode(tile, of: band, into: image, with: decoder, mappings: &mappings))
        }
    }

    /// Decodes tile `tile` of band `band` into the band's planes.
    private func decode(
        _ tile: Int, of band: Int, into image: YCbCr420Image, with decoder: HEVCDecoder,
        mappings: inout [Bool: SampleMapping?]
    ) -> (fullRange: Bool, matrix: Int)? {
        let region = regions[band].tiles
        let x = (tile % plan.columns) * plan.tileWidth - region.x
        let y = (tile / plan.columns) * plan.tileHeight - region.y
        return HeifYCbCrDecoder.decodeTile(
            tile, of: plan, bytes: bytes, with: decoder, into: image, x: x, y: y, output: .jpeg, mappings: &mappings)
    }

    /// The next tile to decode and its band's planes (made by the first worker to reach it); nil
    /// when there is none left or the pipeline failed. Waits while the tile's band is more than
    /// one ahead of the band being encoded.
    private func take() -> (band: Int, tile: Int, image: YCbCr420Image)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard !failed, !cancellation.isCancelled, next < order.count else { return nil }
            if let taken = takeNow(of: nil) { return taken }
            condition.wait()
        }
    }

    /// The next tile when its band may start now (at most one ahead of the band being encoded)
    /// and is `only` (when given), else nil; `condition` held.
    private func takeNow(of only: Int?) -> (band: Int, tile: Int, image: YCbCr420Image)? {
        guard !failed, !cancellation.isCancelled, next < order.count else { return nil }
        let (band, tile) = order[next]
        guard band <= released + 1, only == nil || only == band else { return nil }
        next += 1
        let image = images[band] ?? YCbCr420Image(width: regions[band].width, height: regions[band].height)
        images[band] = image
        return (band, tile, image)
    }

    private func finished(_ band: Int, _ decoded: (fullRange: Bool, matrix: Int)?) {
        if decoded != nil { tiles?.tileDone() }
        condition.lock()
        defer { condition.unlock() }
        // Tiles that disagree on their YCbCr signalling cannot share one picture.
        if let decoded, signalling[band] == nil || signalling[band]! == decoded {
            signalling[band] = decoded
        } else {
            failed = true
            tileFailed = tileFailed || decoded == nil
        }
        remaining[band] -= 1
        condition.broadcast()
    }

    private func fail() {
        condition.lock()
        failed = true
        condition.broadcast()
        condition.unlock()
    }
}
