internal import Foundation
internal import Synchronization

/// The most heap one input holds at once, beyond what was live when it started: counted
/// through the sanitizer's malloc and free hooks (`__sanitizer_install_malloc_and_free_hooks`,
/// which libFuzzer's own `-malloc_limit_mb` uses too), so that a target can hold the
/// code under test to a bound far below libFuzzer's `-rss_limit_mb`.
///
/// Without the sanitizer runtime (a plain build) nothing is counted and ``peak`` is 0.
public enum HeapWatch {
    private typealias MallocHook = @convention(c) (UnsafeRawPointer?, Int) -> Void
    private typealias FreeHook = @convention(c) (UnsafeRawPointer?) -> Void
    private typealias Install = @convention(c) (MallocHook?, FreeHook?) -> CInt
    private typealias AllocatedSize = @convention(c) (UnsafeRawPointer?) -> Int

    private static let live = Atomic<Int>(0)
    private static let highest = Atomic<Int>(0)
    // Written once, before the hooks that read it are installed.
    nonisolated(unsafe) private static var allocatedSize: AllocatedSize?

    /// Installs the hooks (once); whether the sanitizer runtime offers them.
    public static let isAvailable: Bool = {
        guard let install = dlsym(nil, "__sanitizer_install_malloc_and_free_hooks"),
            let size = dlsym(nil, "__sanitizer_get_allocated_size")
        else { return false }
        allocatedSize = unsafeBitCast(size, to: AllocatedSize.self)
        // The hooks run inside malloc: they only touch these atomics, which must not
        // allocate (so they are created before the hooks exist).
        _ = live.load(ordering: .relaxed)
        _ = highest.load(ordering: .relaxed)
        let malloc: MallocHook = { _, size in
            let now = HeapWatch.live.add(size, ordering: .relaxed).newValue
            var seen = HeapWatch.highest.load(ordering: .relaxed)
            while now > seen {
                let (exchanged, original) = HeapWatch.highest.compareExchange(expected: seen, desired: now, ordering: .relaxed)
                if exchanged { break }
                seen = original
            }
        }
        let free: FreeHook = { pointer in
            guard let pointer, let size = HeapWatch.allocatedSize else { return }
            HeapWatch.live.subtract(size(pointer), ordering: .relaxed)
        }
        return unsafeBitCast(install, to: Install.self)(malloc, free) != 0
    }()

    /// Starts counting an input's peak from what is live now; returns the start to pass
    /// to ``peak(since:)``.
    public static func begin() -> Int {
        guard isAvailable else { return 0 }
        let now = live.load(ordering: .relaxed)
        highest.store(now, ordering: .relaxed)
        return now
    }

    /// The most bytes held at once since ``begin()``, beyond what was live then.
    public static func peak(since start: Int) -> Int {
        isAvailable ? highest.load(ordering: .relaxed) - start : 0
    }
}
