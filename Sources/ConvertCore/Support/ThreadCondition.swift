import Glibc

/// A mutex with one condition variable (POSIX `pthread_mutex_t` and `pthread_cond_t`), where
/// full Foundation's `NSCondition` was used before: `lock()`, `unlock()`, and, with the lock
/// held, `wait()` and `signal()`.
/// `@unchecked Sendable`: its only state is the mutex and condition, made to be shared between
/// threads; the two pointers are set once in `init` and freed in `deinit`.
package final class ThreadCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// A new, unlocked condition.
    package init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it as long as another thread holds it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Gives the lock back.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: gives it up until signalled (or woken spuriously; callers wait in a
    /// loop over their own condition), then holds it again.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one thread waiting on this condition, if any.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every thread waiting on this condition.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
