import Glibc

// The C library's path calls, taking a path string and passing the bytes it stands for
// (`PathEncoding`). Swift prefers an overload that needs no conversion, so `stat(path, &info)`
// with a String path resolves here rather than to Glibc's `UnsafePointer<CChar>` version, which
// would pass the string's UTF-8 and miss a file whose name is not UTF-8. Every module that
// imports ConvertCore gets them; a call that already has a C string still reaches Glibc. Like
// the C functions, their results may be ignored.

/// `open(2)` of the file `path` names.
@discardableResult
package func open(_ path: String, _ flags: Int32) -> Int32 {
    PathEncoding.withCString(path) { Glibc.open($0, flags) }
}

/// `open(2)` with a creation mode.
@discardableResult
package func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    PathEncoding.withCString(path) { Glibc.open($0, flags, mode) }
}

/// `stat(2)`.
@discardableResult
package func stat(_ path: String, _ info: UnsafeMutablePointer<stat>) -> Int32 {
    // The compound name picks the function: plain `Glibc.stat` is also the struct.
    PathEncoding.withCString(path) { Glibc.stat(_:_:)($0, info) }
}

/// `lstat(2)`.
@discardableResult
package func lstat(_ path: String, _ info: UnsafeMutablePointer<stat>) -> Int32 {
    PathEncoding.withCString(path) { Glibc.lstat($0, info) }
}

/// `access(2)`.
@discardableResult
package func access(_ path: String, _ mode: Int32) -> Int32 {
    PathEncoding.withCString(path) { Glibc.access($0, mode) }
}

/// `mkdir(2)`.
@discardableResult
package func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
    PathEncoding.withCString(path) { Glibc.mkdir($0, mode) }
}

/// `rmdir(2)`.
@discardableResult
package func rmdir(_ path: String) -> Int32 {
    PathEncoding.withCString(path) { Glibc.rmdir($0) }
}

/// `unlink(2)`.
@discardableResult
package func unlink(_ path: String) -> Int32 {
    PathEncoding.withCString(path) { Glibc.unlink($0) }
}

/// `rename(2)`.
@discardableResult
package func rename(_ from: String, _ to: String) -> Int32 {
    PathEncoding.withCString(from) { old in PathEncoding.withCString(to) { Glibc.rename(old, $0) } }
}

/// `link(2)`.
@discardableResult
package func link(_ from: String, _ to: String) -> Int32 {
    PathEncoding.withCString(from) { old in PathEncoding.withCString(to) { Glibc.link(old, $0) } }
}

/// `chmod(2)`.
@discardableResult
package func chmod(_ path: String, _ mode: mode_t) -> Int32 {
    PathEncoding.withCString(path) { Glibc.chmod($0, mode) }
}

/// `utimensat(2)`.
@discardableResult
package func utimensat(_ folder: Int32, _ path: String, _ times: UnsafePointer<timespec>, _ flags: Int32) -> Int32 {
    PathEncoding.withCString(path) { Glibc.utimensat(folder, $0, times, flags) }
}

/// `statvfs(3)`.
@discardableResult
package func statvfs(_ path: String, _ info: UnsafeMutablePointer<statvfs>) -> Int32 {
    // The compound name picks the function: plain `Glibc.statvfs` is also the struct.
    PathEncoding.withCString(path) { Glibc.statvfs(_:_:)($0, info) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
// (Glibc's name, so that a call reads as the system call it is, taking a String path.)
/// `inotify_add_watch(2)`.
@discardableResult
package func inotify_add_watch(_ descriptor: Int32, _ path: String, _ mask: UInt32) -> Int32 {
    PathEncoding.withCString(path) { Glibc.inotify_add_watch(descriptor, $0, mask) }
}

/// `realpath(3)` of `path`, decoded as a path; nil when it cannot be resolved.
@discardableResult
package func realpath(_ path: String) -> String? {
    guard let resolved = PathEncoding.withCString(path, { Glibc.realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return PathEncoding.decode(cString: resolved)
}
