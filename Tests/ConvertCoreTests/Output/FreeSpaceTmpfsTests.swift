import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Runs on a real 1 MiB tmpfs, which needs root (as in the build container).
@Suite(
    "Free space on a tiny tmpfs",
    .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")))
struct FreeSpaceTmpfsTests {
    private func sh(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test("the check refuses a batch that cannot fit; running out mid-write is a device error")
    func tinyDisk() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try sh(["/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.path]) == 0)
        defer { _ = try? sh(["/bin/umount", folder.path]) }

        let free = try FreeSpace.available(in: folder.path)
        #expect(free <= 1 << 20 && free > 0)
        let error = expectConvertError(.deviceFull) { try FreeSpace.check(needed: 2_000_000, in: folder.path) }
        #expect(error?.message.contains("2.0 MB needed") == true)

        let stage = try StagedOutput(destination: folder.appendingPathComponent("big.jpg").path)
        let fd = open(stage.temporaryPath, O_WRONLY)
        #expect(fd >= 0)
        let chunk = [UInt8](repeating: 7, count: 64 * 1024)
        var failure: Int32 = 0
        for _ in 0..<32 {
            if chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) < 0 {
                failure = errno
                break
            }
        }
        close(fd)
        #expect(failure == ENOSPC)
        let mapped = ConvertError.fileSystem(failure, action: "write", path: stage.destination)
        #expect(mapped.category == .device && mapped.code == .deviceFull)
        stage.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
