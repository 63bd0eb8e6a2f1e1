import Glibc

/// Linux file names are bytes; Swift strings are Unicode. A name written on another system
/// (`caf\xE9.jpg`, Latin-1 from an old camera card or a zip) is not UTF-8, and decoding it the
/// usual way replaces the byte with U+FFFD: the string then names a file that does not exist.
///
/// Paths are carried as strings in which every byte that is not part of valid UTF-8 stands as
/// one code point U+10FF80 + (byte − 0x80), from the last private-use plane (the idea of
/// Python's `surrogateescape`, which Swift strings cannot hold). The mapping is one to one: a
/// name that really contains such a code point has its UTF-8 bytes escaped the same way, so
/// ``bytes(_:)`` gives back exactly the bytes ``decode(_:)`` was given. Path arithmetic
/// (`PathText`), output naming and renumbering then work on the string as on any other, and an
/// output named after `caf\xE9.jpg` is `caf\xE9.png`, byte for byte.
///
/// The bytes are restored where a path leaves for the system: the overloads in
/// `PathSystemCalls.swift` and ``withCString(_:_:)`` for C libraries. Text for people goes
/// through ``displayed(_:)``, which shows each such byte as U+FFFD.
package enum PathEncoding {
    /// The first code point that stands for a byte; byte `b` (0x80...0xFF) is `escapeBase + b`.
    private static let escapeBase: UInt32 = 0x10FF00
    private static let escapes: ClosedRange<UInt32> = 0x10FF80...0x10FFFF

    /// The string for a path's bytes.
    package static func decode(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: isEscape) {
            return text
        }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isEscape(scalar) { escape(encoded, into: &scalars) } else { scalars.append(scalar) }
                offset = bytes.index(offset, offsetBy: encoded.count)
            case .error(let length):
                let end = bytes.index(offset, offsetBy: length)
                escape(bytes[offset..<end], into: &scalars)
                offset = end
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The string for a C string a C library returned (`realpath`, `getcwd`, `argv`).
    package static func decode(cString: UnsafePointer<CChar>) -> String {
        decode(UnsafeBufferPointer(start: cString, count: strlen(cString)).lazy.map { UInt8(bitPattern: $0) })
    }

    /// The string for a path in a C character buffer (a filled-in `mkstemp` template), up to its
    /// first NUL.
    package static func decode(nulTerminated buffer: [CChar]) -> String {
        decode(buffer.prefix { $0 != 0 }.lazy.map { UInt8(bitPattern: $0) })
    }

    /// The bytes a path string stands for, without a terminating NUL.
    package static func bytes(_ path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: isEscape) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value - escapeBase))
            } else {
                bytes += UTF8.encode(scalar).map(Array.init) ?? []
            }
        }
        return bytes
    }

    /// Calls `body` with the path's bytes as a NUL-terminated C string, for a C function that
    /// opens or names a file.
    package static func withCString<Result, Failure: Error>(
        _ path: String, _ body: (UnsafePointer<CChar>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let terminated = cString(path)
        // A [CChar] always has storage once it holds the NUL.
        return try terminated.withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in
            try body(buffer.baseAddress!)
        }
    }

    /// The path's bytes with a terminating NUL, for `mkstemp`-style templates the C library
    /// fills in.
    package static func cString(_ path: String) -> [CChar] {
        bytes(path).map { CChar(bitPattern: $0) } + [0]
    }

    /// `text` for a person to read: each byte that was not UTF-8 shown as U+FFFD.
    package static func displayed(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isEscape) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isEscape($0) ? "\u{FFFD}" : $0 }))
    }

    /// This process's arguments with their bytes kept (`CommandLine.arguments` replaces the
    /// bytes that are not UTF-8).
    package static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { decode(cString: $0) } ?? ""
        }
    }

    private static func isEscape(_ scalar: Unicode.Scalar) -> Bool { escapes.contains(scalar.value) }

    private static func escape(_ bytes: some Sequence<UInt8>, into scalars: inout String.UnicodeScalarView) {
        for byte in bytes {
            // 0x10FF80...0x10FFFF are valid scalars; a byte below 0x80 is never escaped.
            scalars.append(Unicode.Scalar(escapeBase + UInt32(byte)) ?? "\u{FFFD}")
        }
    }
}
