import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Target-size solver")
struct TargetSizeTests {
    /// A monotone size table: size(q) = 1000 + 100·q.
    static func size(_ quality: Int) -> Int64 { Int64(1000 + 100 * quality) }

    /// (target, expected quality) around the boundaries of the table.
    static let boundaryTable: [(Int64, Int)] = [
        (10_500, 95),  // exactly the top fits
        (1_000_000, 95),  // everything fits
        (8000, 70),  // exact boundary
        (8099, 70),  // just above a boundary
        (7999, 69),  // just below a boundary
        (5000, 40),  // exactly the floor
    ]

    @Test("finds the largest quality at or under the target", arguments: boundaryTable)
    func boundaries(target: Int64, expected: Int) throws {
        var calls = 0
        let found = try TargetSizeSolver.largestQuality(in: TargetSizeSolver.qualities, target: target) { quality in
            calls += 1
            return Self.size(quality)
        }
        #expect(found?.quality == expected)
        #expect(found.map { $0.size <= target } == true)
        #expect(calls <= 8)
    }

    @Test("nil when even the lowest quality is over the target")
    func floorMisses() throws {
        let found = try TargetSizeSolver.largestQuality(in: 40...95, target: Self.size(40) - 1) { Self.size($0) }
        #expect(found == nil)
    }

    @Test("a non-monotone table never yields a size over the target")
    func nonMonotone() throws {
        let table: [Int: Int64] = Dictionary(
            uniqueKeysWithValues: (40...95).map { ($0, Int64($0 % 7 == 0 ? 9000 : 100 * $0)) })
        let found = try TargetSizeSolver.largestQuality(in: 40...95, target: 8000) { table[$0] ?? 0 }
        #expect(found.map { $0.size <= 8000 } == true)
    }

    /// (edge, floor bytes, target, expected next edge).
    static let edgeTable: [(Int, Int64, Int64, Int)] = [
        (4000, 4_000_000, 1_000_000, 1800),  // ratio 1/4 → ×0.5 ×0.9
        (4000, 1_000_001, 1_000_000, 3599),  // barely over → the 10% margin, rounded down
        (1000, 1_000_000, 999_999, 899),  // never more than 90% of the edge
        (100, 1_000_000, 1, 1),  // hopeless → 1, the caller gives up
    ]

    @Test("the next long edge shrinks by at least 10% and by the square root of the size ratio", arguments: edgeTable)
    func nextEdge(edge: Int, floor: Int64, target: Int64, expected: Int) {
        #expect(TargetSizeSolver.nextLongEdge(current: edge, bytesAtFloor: floor, target: target) == expected)
    }

    static let photoTargets: [(String, Int64)] = [
        ("photos/IMG_5195.HEIC", 300_000), ("photos/tokyo.jpg", 100_000), ("photos/pug.heic", 150_000),
    ]

    @Test("real photos land at or under the target, as large as they can", arguments: photoTargets)
    func realPhotos(source: String, target: Int64) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path(source), format: .jpeg, outputDirectory: directory.path,
                targetByteCount: target))
        let output = try #require(result.outputs.first)
        #expect(output.byteCount <= target)
        // Not wastefully small: within 25% of the target (quality steps are coarse at the top).
        #expect(output.byteCount >= target * 3 / 4)
    }

    @Test("an unreachable target is a request error and writes nothing")
    func unreachable() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: Fixtures.path("photos/zPug_3.heic"), format: .jpeg, outputDirectory: directory.path,
                    targetByteCount: 500))
            Issue.record("a 500-byte target was met")
        } catch {
            #expect(error.code == .requestTargetUnreachable)
        }
        #expect(PhotoRun.files(directory).isEmpty)
    }

    @Test("WebP lands at or under the target through libwebp's size search, as dwebp reads it", arguments: photoTargets)
    func webpTargets(source: String, target: Int64) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path(source), format: .webp, outputDirectory: directory.path,
                targetByteCount: target))
        let output = try #require(result.outputs.first)
        #expect(output.byteCount <= target)
        #expect(output.byteCount >= target * 3 / 4)
        #expect(
            result.notes.messages.contains { $0.hasPrefix("quality chosen by libwebp's size search") },
            "\(result.notes.messages)")
        let (status, info) = try PhotoReference.run("webpinfo", [output.path])
        #expect(status == 0)
        #expect(String(decoding: info, as: UTF8.self).contains("Format: Lossy"))
    }

    @Test("a WebP target below what quality 40 gives at full size still shrinks the picture to fit")
    func webpShrinks() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .webp, outputDirectory: directory.path,
                targetByteCount: 15_000))
        let output = try #require(result.outputs.first)
        #expect(output.byteCount <= 15_000)
        #expect(result.notes.messages.contains { $0.hasPrefix("resized to ") }, "\(result.notes.messages)")
        let (status, info) = try PhotoReference.run("webpinfo", [output.path])
        #expect(status == 0)
        #expect(!String(decoding: info, as: UTF8.self).contains("Width: 2566"))
    }
}
