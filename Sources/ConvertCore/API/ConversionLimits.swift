/// The threads conversion work runs on, and how many jobs use them at once: create one and pass
/// it to the entry points, the way a SwiftNIO app creates a `NIOThreadPool(numberOfThreads:)`,
/// or leave them at ``shared``.
///
/// A ``ConversionLimits`` owns two fixed pools, which are every thread the library's own code
/// runs conversion work on:
/// - the codec threads (``codecThreads``): a job's decoding, encoding and remuxing, one job a
///   thread;
/// - the helper threads (``helperThreads``, as many as the codec threads): the fan-out within a
///   job (a HEIC grid's tiles, an HDR picture's bands, a gain map beside its picture, a video
///   frame's tone map), for which the job's codec thread takes part too.
///
/// None of this work ever runs on Swift's cooperative pool or on Dispatch's global queues (on
/// Linux the global executor's threads): a conversion never holds a thread the app's tasks or
/// its main actor need. Threads start when work first needs them and stay until the process
/// ends, so an instance lives as long as the process once used; create a few at most.
///
/// At most ``concurrentConversions`` jobs do their codec work at a time; a job started beyond the
/// limit waits, in the order jobs were started, as a suspended task that holds no thread. While
/// it waits it reports ``JobStage/queued``; cancelling it ends it at once with its `.cancelled`
/// terminal event, and its codec work never runs. Short work (allowance transactions, probes)
/// has a lane of four threads of its own, shared by every instance, and never waits behind
/// conversions. The C libraries may start threads of their own beyond these (x265's and
/// libjxl's workers, libheif's tile threads for ``PhotoRequest/decodingThreads``).
///
/// ```swift
/// let limits = ConversionLimits(codecThreads: 2)
/// let job = PhotoConverter.convert(request, limits: limits)
/// ```
///
/// The static ``codecThreads`` and ``concurrentConversions`` read and set ``shared``, the limits
/// of every job started without an instance.
public final class ConversionLimits: Sendable {
    /// The limits of jobs started without an instance: as many codec threads as cores (at least
    /// 2), and as many helpers.
    public static let shared = ConversionLimits(codec: .codec, helpers: .shared, admission: .shared)

    /// The lane this instance's jobs decode and encode on.
    package let codec: BlockingExecutor
    /// The pool their fan-out goes to (``WorkerPool/current`` on ``codec``'s threads).
    package let helpers: WorkerPool
    /// The admission of this instance's jobs to ``codec``.
    package let admission: JobAdmission

    /// Limits of `codecThreads` codec threads (at least 1) and as many helper threads, admitting
    /// that many jobs at once. Jobs started with different instances do not wait for each other.
    public convenience init(codecThreads: Int) {
        let threads = max(1, codecThreads)
        let helpers = WorkerPool(threadCount: threads, stackSize: BlockingExecutor.codecStackSize)
        self.init(
            codec: BlockingExecutor(threadCount: threads, stackSize: BlockingExecutor.codecStackSize, helpers: helpers),
            helpers: helpers, admission: JobAdmission(limit: threads, maximum: threads))
    }

    package init(codec: BlockingExecutor, helpers: WorkerPool, admission: JobAdmission) {
        self.codec = codec
        self.helpers = helpers
        self.admission = admission
    }

    /// The number of codec threads: the most conversions that can decode or encode at once.
    /// Fixed for the life of the instance.
    public var codecThreads: Int { codec.threadCount }

    /// The number of helper threads the jobs' fan-out shares. Fixed for the life of the instance.
    public var helperThreads: Int { helpers.threadCount }

    /// How many of this instance's jobs run their codec work at once (default: ``codecThreads``).
    ///
    /// Values are clamped to `1...codecThreads`. Lower it to leave cores to the rest of the app;
    /// raising it admits waiting jobs at once, lowering it lets running jobs finish.
    public var concurrentConversions: Int {
        get { admission.limit }
        set { admission.setLimit(newValue) }
    }

    /// The number of codec threads of ``shared``.
    public static var codecThreads: Int { shared.codecThreads }

    /// How many jobs started without an instance run their codec work at once: ``shared``'s
    /// ``concurrentConversions``.
    public static var concurrentConversions: Int {
        get { shared.concurrentConversions }
        set { shared.concurrentConversions = newValue }
    }
}
