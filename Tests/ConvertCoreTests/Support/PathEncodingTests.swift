import ConvertCore
import Foundation
import Testing

/// `PathEncoding` carries any byte string through a Swift string and back, one to one.
@Suite("Path bytes in strings")
struct PathEncodingTests {
    @Test("a UTF-8 name is itself; a Latin-1 byte becomes one private-use code point and is shown as U+FFFD")
    func latin1() {
        #expect(PathEncoding.decode(Array("IMG_0001 é.HEIC".utf8)) == "IMG_0001 é.HEIC")
        let cafe = PathEncoding.decode(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(cafe.unicodeScalars.count == 8)
        #expect(PathEncoding.bytes(cafe) == Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(PathEncoding.displayed(cafe) == "caf\u{FFFD}.jpg")
        // Path arithmetic sees one character where the byte was.
        #expect(
            PathEncoding.bytes(cafe.replacingOccurrences(of: ".jpg", with: " (2).png")) == Array("caf".utf8) + [0xE9]
                + Array(" (2).png".utf8))
    }

    @Test("every byte string comes back unchanged, including names that really contain the private-use code points")
    func roundTrip() {
        var generator = FuzzMixer(state: 0x0ff_c0_4e47)
        let pieces: [[UInt8]] = [
            [0xE9], [0xFF], [0xC3], [0xC3, 0xA9], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBE, 0x80],
            [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x93, 0xB7], [0x2F], [0x41], [0x80], [0xF8],
        ]
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<generator.below(12) {
                bytes += generator.below(3) == 0 ? [UInt8(1 + generator.below(255))] : generator.pick(pieces)
            }
            let text = PathEncoding.decode(bytes)
            #expect(PathEncoding.bytes(text) == bytes, "\(bytes)")
            #expect(PathEncoding.cString(text) == bytes.map { CChar(bitPattern: $0) } + [0])
            #expect(String(validating: Array(PathEncoding.displayed(text).utf8), as: UTF8.self) != nil)
        }
    }

    @Test("the C library calls taking a String reach the file by its bytes")
    func systemCalls() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "path-bytes-\(UUID().uuidString.prefix(8))"
        ).path
        #expect(mkdir(folder, 0o755) == 0)
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let name = PathEncoding.decode(Array(folder.utf8) + Array("/caf".utf8) + [0xE9])
        let fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        close(fd)
        var info = stat()
        #expect(stat(name, &info) == 0)
        #expect(FolderListing.names(in: folder) == [PathEncoding.decode(Array("caf".utf8) + [0xE9])])
        #expect(rename(name, name + ".jpg") == 0)
        #expect(unlink(name + ".jpg") == 0)
        #expect(FolderListing.names(in: folder) == [])
    }
}
