import ConvertBatch
import ConvertCore

/// How a photo command converts its items: each item's ``PhotoRequest``, and what the command
/// adds to a result. ``BatchRunner`` runs the requests as one ``PhotoBatch``.
package struct PhotoConversion: Sendable {
    /// The item's request: the command's template with the item's input, destination, the
    /// header read for its estimate and the placement gate.
    package var request: @Sendable (BatchItem) -> PhotoRequest
    /// The result as the command reports it (a shrinking command's note on a larger output).
    package var report: @Sendable (JobResult, BatchItem) -> JobResult = { result, _ in result }
    /// The photos converting at once and the items in the batch, which balance one photo's tile
    /// threads when it is converted alone (``convertOne``); a ``PhotoBatch`` balances its own.
    var jobs: Int
    var total: Int

    /// A conversion of `total` items, `jobs` at once.
    package init(jobs: Int, total: Int, request: @escaping @Sendable (BatchItem) -> PhotoRequest) {
        self.jobs = jobs
        self.total = total
        self.request = request
    }

    /// One item converted on its own, for work that wraps the photo conversion with another
    /// kind of its own (see ``BatchWork/convert``).
    var convertOne: BatchWork.Conversion.Each {
        let (request, report, jobs, total) = (self.request, self.report, self.jobs, self.total)
        return { item, progress throws(ConvertError) in
            var photo = request(item)
            photo.decodingThreads = DecodingThreads.perPhoto(jobs: jobs, items: total - item.index)
            return report(try await PhotoConverter.convert(photo).result(onProgress: progress), item)
        }
    }
}
