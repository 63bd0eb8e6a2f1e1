import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("ISO box reader")
struct BoxReaderTests {
    typealias B = BoxBytes

    private func reader(_ bytes: [UInt8]) -> BoxReader { BoxReader(source: MemoryByteSource(bytes: bytes)) }

    @Test("walks top-level boxes and their children")
    func nested() throws {
        let bytes = B.box("ftyp", B.code("isom") + B.u32(0)) + B.box("moov", B.box("udta", []) + B.box("trak", []))
        let reader = reader(bytes)
        let top = try reader.children(of: nil, depth: 0)
        #expect(top.map(\.type) == ["ftyp", "moov"])
        #expect(top[1].offset == 16 && top[1].size == 24 && !top[1].isTruncated)
        let inner = try reader.children(of: top[1], depth: 1)
        #expect(inner.map(\.type) == ["udta", "trak"])
        #expect(inner.map(\.offset) == [24, 32])
    }

    @Test("size 0 extends to the end of the parent")
    func sizeZero() throws {
        let bytes = B.box("free", []) + B.u32(0) + B.code("mdat") + [UInt8](repeating: 7, count: 100)
        let top = try reader(bytes).children(of: nil, depth: 0)
        #expect(top.map(\.type) == ["free", "mdat"])
        #expect(top[1].size == 108 && top[1].end == UInt64(bytes.count))
    }

    @Test("size 1 reads a 64-bit largesize")
    func largeSize() throws {
        let bytes = B.u32(1) + B.code("mdat") + B.u64(16 + 4) + [1, 2, 3, 4] + B.box("moov", [])
        let top = try reader(bytes).children(of: nil, depth: 0)
        #expect(top.map(\.type) == ["mdat", "moov"])
        #expect(top[0].headerSize == 16 && top[0].payloadSize == 4)
    }

    @Test("a top-level box past the end of the file marks it truncated, without reading it")
    func truncatedTopLevel() throws {
        let bytes = B.box("ftyp", B.code("isom") + B.u32(0)) + B.u32(1) + B.code("mdat") + B.u64(UInt64(1) << 62)
        let top = try reader(bytes).children(of: nil, depth: 0)
        #expect(top.last?.type == "mdat")
        #expect(top.last?.isTruncated == true)
        #expect(top.last?.end == UInt64(bytes.count))
    }

    @Test("a child past its parent's end is an error")
    func childPastParent() throws {
        let bytes = B.box("moov", B.header("trak", size: 4096))
        let reader = reader(bytes)
        let moov = try #require(try reader.children(of: nil, depth: 0).first)
        #expect(throws: BoxError.pastParentEnd(type: "trak", offset: 8)) { try reader.children(of: moov, depth: 1) }
    }

    @Test("sizes smaller than the header are refused", arguments: [2, 4, 7])
    func tooSmall(size: UInt32) throws {
        let bytes = B.header("junk", size: size) + [UInt8](repeating: 0, count: 16)
        #expect(throws: BoxError.sizeTooSmall(type: "junk", offset: 0)) {
            try reader(bytes).children(of: nil, depth: 0)
        }
    }

    @Test("a largesize below 16 is refused")
    func tooSmallLarge() throws {
        let bytes = B.u32(1) + B.code("mdat") + B.u64(12) + [0, 0, 0, 0]
        #expect(throws: BoxError.sizeTooSmall(type: "mdat", offset: 0)) {
            try reader(bytes).children(of: nil, depth: 0)
        }
    }

    @Test("trailing bytes too short for a header end the level quietly")
    func trailingBytes() throws {
        let top = try reader(B.box("moov", []) + [0, 0, 0, 0]).children(of: nil, depth: 0)
        #expect(top.map(\.type) == ["moov"])
    }

    @Test("deep nesting stops at the depth limit")
    func deepNesting() throws {
        var bytes = B.box("leaf", [])
        for _ in 0..<40 { bytes = B.box("nest", bytes) }
        let reader = reader(bytes)
        var parent: BoxHeader? = nil
        var depth = 0
        let error = #expect(throws: BoxError.self) {
            while true {
                guard let next = try reader.children(of: parent, depth: depth).first else { break }
                parent = next
                depth += 1
            }
        }
        #expect(error == .tooDeep)
        #expect(depth == BoxLimits.maximumDepth)
    }

    @Test("millions of tiny boxes hit the header budget instead of running on")
    func tooManyBoxes() throws {
        let bytes = [UInt8]((0..<(BoxLimits.maximumBoxes + 10)).map { _ in B.box("free", []) }.joined())
        #expect(throws: BoxError.tooManyBoxes) { try reader(bytes).children(of: nil, depth: 0) }
    }

    @Test("a payload above the read bound is refused before anything is allocated")
    func hugePayload() throws {
        // A 1 TB "file" whose moov claims 512 GB: headers are read, the payload never is.
        let prefix = B.u32(1) + B.code("moov") + B.u64(UInt64(1) << 39)
        let reader = BoxReader(source: SparseByteSource(prefix: prefix, size: UInt64(1) << 40))
        let moov = try #require(try reader.children(of: nil, depth: 0).first)
        #expect(moov.size == UInt64(1) << 39)
        #expect(throws: BoxError.tooLarge(type: "moov", size: UInt64(1) << 39)) { try reader.payload(of: moov) }
    }

    @Test("a huge moov of zero bytes is scanned without allocation or crash")
    func hugeZeroMovie() throws {
        // After the moov header the sparse source reads zeros: a size-0 child spanning the rest.
        let prefix = B.ftyp("isom") + B.u32(1) + B.code("moov") + B.u64(UInt64(1) << 39)
        let reader = BoxReader(source: SparseByteSource(prefix: prefix, size: UInt64(1) << 40))
        let movie = try MovieBoxScanner.scan(reader)
        #expect(movie.hasMovieBox)
        #expect(movie.tracks.isEmpty)
    }

    @Test("a field read past the payload's end throws instead of trapping")
    func cursorBounds() throws {
        var cursor = ByteCursor([1, 2, 3], type: "test")
        #expect(try cursor.u16() == 0x0102)
        #expect(throws: BoxError.truncatedPayload(type: "test")) { try cursor.u16() }
        #expect(throws: BoxError.truncatedPayload(type: "test")) { try cursor.skip(-1) }
    }

    @Test("FourCC prints hostile codes as hex, never raw control bytes")
    func fourCCDescription() {
        #expect(FourCC("hvc1").description == "hvc1")
        #expect(FourCC("©xyz").description == "©xyz")
        #expect(FourCC(rawValue: 0x1B5B_3331).description == "0x1b5b3331")
    }
}

@Suite("MP4 movie box scanner")
struct MovieBoxScannerTests {
    typealias B = BoxBytes

    private func scan(_ bytes: [UInt8]) throws -> ISOMovie {
        try MovieBoxScanner.scan(BoxReader(source: MemoryByteSource(bytes: bytes)))
    }

    @Test("reads Dolby Vision, colr, mdcv and clli from a video sample entry")
    func videoEntry() throws {
        let dvwC = B.box(
            "dvwC", B.dolbyVisionRecord(profile: 10, level: 5, rpu: true, el: false, bl: true, compatibility: 4))
        let colr = B.box("colr", B.code("nclx") + B.u16(9) + B.u16(18) + B.u16(9) + [0x80])
        // Display P3 primaries in G, B, R order (0.00002 steps), D65, 1000 / 0.005 cd/m².
        let mdcv = B.box(
            "mdcv",
            B.u16(13250) + B.u16(34500) + B.u16(7500) + B.u16(3000) + B.u16(34000)
                + B.u16(16000) + B.u16(15635) + B.u16(16450) + B.u32(10_000_000) + B.u32(50))
        let clli = B.box("clli", B.u16(1000) + B.u16(400))
        let entry = B.visualEntry("dav1", children: B.box("av1C", [0x81, 0, 0, 0]) + dvwC + colr + mdcv + clli)
        let bytes = B.ftyp("isom") + B.box("mdat", [0]) + B.box("moov", B.track(id: 7, handler: "vide", entry: entry))
        let movie = try scan(bytes)
        #expect(movie.majorBrand == "isom")
        let track = try #require(movie.tracks.first)
        #expect(track.trackID == 7)
        #expect(track.handler == "vide")
        let sample = try #require(track.sampleEntries.first)
        #expect(sample.format == "dav1")
        let record = try #require(sample.dolbyVision)
        #expect(record.profile == 10 && record.level == 5 && record.rpuPresent && !record.enhancementLayerPresent)
        #expect(record.baseLayerPresent && record.baseLayerCompatibilityID == 4 && record.configurationBox == "dvwC")
        #expect(sample.color == ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020nc, range: .full))
        let display = try #require(sample.masteringDisplay)
        #expect(abs((display.red?.x ?? 0) - 0.68) < 1e-9 && abs((display.green?.y ?? 0) - 0.69) < 1e-9)
        #expect(display.maxLuminance == 1000 && abs((display.minLuminance ?? 0) - 0.005) < 1e-9)
        #expect(sample.contentLight == ContentLightLevel(maxCLL: 1000, maxFALL: 400))
    }

    @Test("names audio and data sample entries FFmpeg cannot decode")
    func otherEntries() throws {
        let metadataEntry = B.box("mebx", [UInt8](repeating: 0, count: 8) + B.box("keys", []))
        let bytes = B.box(
            "moov",
            B.track(id: 1, handler: "soun", entry: B.audioEntry("apac"))
                + B.track(id: 2, handler: "meta", entry: metadataEntry)
                + B.track(id: 3, handler: "tmcd", entry: B.box("tmcd", [UInt8](repeating: 0, count: 26))))
        let movie = try scan(bytes)
        #expect(movie.tracks.map(\.handler) == ["soun", "meta", "tmcd"])
        #expect(movie.tracks.map { $0.sampleEntries.first?.format } == ["apac", "mebx", "tmcd"])
        #expect(movie.truncatedBox == nil && movie.problems.isEmpty)
    }

    @Test("a damaged track is skipped with a problem; the others are kept")
    func damagedTrack() throws {
        let bad = B.box("trak", B.box("mdia", B.header("minf", size: 999)))
        let good = B.track(id: 2, handler: "vide", entry: B.visualEntry("avc1", children: []))
        let movie = try scan(B.box("moov", bad + good))
        #expect(movie.tracks.map(\.trackID) == [2])
        #expect(movie.problems.count == 1)
        #expect(movie.problems.first?.contains("trak") == true)
    }

    @Test("a sample entry larger than its stsd is a problem, not a crash")
    func hostileSampleEntry() throws {
        let stsd = B.fullBox("stsd", B.u32(1) + B.header("hvc1", size: 0x7FFF_FFFF) + [0, 0, 0, 0])
        let trak = B.box("trak", B.box("mdia", B.box("minf", B.box("stbl", stsd))))
        let movie = try scan(B.box("moov", trak))
        #expect(movie.tracks.isEmpty)
        #expect(movie.problems.count == 1)
    }

    @Test("a Dolby Vision box shorter than its record is a problem")
    func shortDolbyVision() throws {
        let entry = B.visualEntry("hvc1", children: B.box("dvcC", [1, 0]))
        let movie = try scan(B.box("moov", B.track(id: 1, handler: "vide", entry: entry)))
        #expect(movie.tracks.isEmpty)
        #expect(movie.problems.first?.contains("dvcC") == true)
    }

    @Test("reads the location from udta ©xyz")
    func userDataLocation() throws {
        let text = Array("+48.8583+002.2945/".utf8)
        let udta = B.box("udta", B.box("©xyz", B.u16(text.count) + B.u16(0x15C7) + text))
        let movie = try scan(B.box("moov", udta))
        #expect(movie.location == "+48.8583+002.2945/")
    }

    @Test("reads the location from the QuickTime metadata keys")
    func keyedLocation() throws {
        let makeKey = Array("com.apple.quicktime.make".utf8)
        let locationKey = Array("com.apple.quicktime.location.ISO6709".utf8)
        let keys = B.fullBox(
            "keys",
            B.u32(2) + B.u32(UInt32(8 + makeKey.count)) + B.code("mdta") + makeKey
                + B.u32(UInt32(8 + locationKey.count)) + B.code("mdta") + locationKey)
        let value = Array("+51.5334-000.1255+026.756/".utf8)
        let ilst = B.box(
            "ilst",
            B.u32(8 + 16 + 5) + B.u32(1) + B.box("data", B.u32(1) + B.u32(0) + Array("Apple".utf8))
                + B.u32(UInt32(8 + 16 + value.count)) + B.u32(2) + B.box("data", B.u32(1) + B.u32(0) + value))
        let hdlr = B.fullBox("hdlr", B.u32(0) + B.code("mdta") + [UInt8](repeating: 0, count: 13))
        let movie = try scan(B.box("moov", B.box("meta", hdlr + keys + ilst)))
        #expect(movie.location == "+51.5334-000.1255+026.756/")
    }

    @Test("a file cut inside mdat is reported as truncated")
    func truncatedFile() throws {
        let bytes = B.ftyp("isom") + B.box("moov", []) + B.header("mdat", size: 100_000) + [1, 2, 3]
        let movie = try scan(bytes)
        #expect(movie.truncatedBox == "mdat")
    }
}
