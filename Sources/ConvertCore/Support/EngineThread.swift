import Glibc

/// What the calling thread is to the engine: the ``WorkerPool`` its fan-out goes to, set once by
/// each thread the engine starts (a codec thread, a helper) and nil on every other thread.
///
/// A thread-local rather than a parameter: the fan-out sits many calls below the entry point
/// (a grid's tiles, an HDR still's bands, a video frame's tone map), and what decides the pool
/// is the thread itself: the codec thread a ``ConversionLimits`` gave the job.
package enum EngineThread {
    /// The key of the thread-local; nil when the system had none left (every thread then counts
    /// as foreign, and fan-out goes to ``WorkerPool/shared``).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The pool of the calling thread, nil when the engine did not start it. Pools are never
    /// freed while their threads live (each thread holds its pool), so the pointer stays valid.
    package static var pool: WorkerPool? {
        get {
            guard let key, let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<WorkerPool>.fromOpaque(raw).takeUnretainedValue()
        }
        set {
            guard let key else { return }
            pthread_setspecific(key, newValue.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
        }
    }
}
