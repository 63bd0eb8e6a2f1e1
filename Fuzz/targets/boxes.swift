// libFuzzer target: the ISO-BMFF box reader, the movie box scanner, an image sequence's track
// and the SEF slow-motion reader over arbitrary bytes.
// Built by Fuzz/run with Sources/ConvertCore/Read/ISO/*.swift, ConvertMedia's MovieBoxScanner and the value types
// they return; nothing else of ConvertCore is linked in.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoxes(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let reader = BoxReader(source: MemoryByteSource(bytes: bytes))
    if let movie = try? MovieBoxScanner.scan(reader) {
        _ = movie.tracks.count
    }
    // Walk every box to depth 4 too, reading each payload: the scanner only visits the ones it knows.
    func walk(_ parent: BoxHeader?, depth: Int) {
        guard depth < 5, let children = try? reader.children(of: parent, depth: depth) else { return }
        for child in children {
            _ = try? reader.payloadPrefix(of: child, count: 64)
            walk(child, depth: depth + 1)
        }
    }
    walk(nil, depth: 0)
    // The same bytes as an animated AVIF's movie track (its stts may claim any count).
    _ = ImageSequenceTrack.read(MemoryByteSource(bytes: bytes))
    // The same bytes as a file ending in a Samsung SEF trailer.
    _ = SlowMotionSegments.read(from: MemoryByteSource(bytes: bytes))
    return 0
}
