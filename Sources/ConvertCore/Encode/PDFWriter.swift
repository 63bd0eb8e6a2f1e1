import FoundationEssentials
import Glibc

/// A minimal PDF 1.4 writer for image albums: one image per page, streamed to a file (only the
/// current image is in memory), objects numbered as they are written, cross-reference table at
/// the end.
final class PDFWriter {
    private var fd: Int32
    private let path: String
    private var offset = 0
    /// Byte offset of each object, by object number (index 0 unused).
    private var offsets: [Int] = [0, 0, 0]
    private var pages: [Int] = []

    /// Object numbers 1 and 2 are reserved for the catalog and the page tree, written last.
    package init(path: String) throws(ConvertError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem(errno, action: "write", path: path) }
        self.fd = fd
        self.path = path
        // The binary comment marks the file as binary for transfer tools, as the spec advises.
        try write(Array("%PDF-1.4\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
    }

    deinit { if fd >= 0 { close(fd) } }

    private func write(_ bytes: [UInt8]) throws(ConvertError) {
        if let failure = RawFile.write(bytes[...], to: fd) { throw writeError(failure) }
        offset += bytes.count
    }

    private func write(_ text: String) throws(ConvertError) { try write(Array(text.utf8)) }

    private func allocate() -> Int {
        offsets.append(0)
        return offsets.count - 1
    }

    /// Writes object `number` with `dictionary` and, if given, a stream body.
    private func object(_ number: Int, _ dictionary: String, stream: [UInt8]? = nil) throws(ConvertError) {
        offsets[number] = offset
        if let stream {
            try write("\(number) 0 obj\n<< \(dictionary) /Length \(stream.count) >>\nstream\n")
            try write(stream)
            try write("\nendstream\nendobj\n")
        } else {
            try write("\(number) 0 obj\n\(dictionary)\nendobj\n")
        }
    }

    /// The encoded image of one page.
    struct PageImage {
        /// A baseline or progressive JPEG stream (DCTDecode).
        package var jpeg: [UInt8]
        package var width: Int
        package var height: Int
        /// 1 (grey) or 3 (RGB) components.
        var components: Int
        /// An ICC profile for the components, embedded as an ICCBased colour space.
        package var icc: [UInt8]?
    }

    /// Adds a page of `pageWidth`×`pageHeight` points showing `image` in `box` (x, y, w, h).
    func addPage(_ image: PageImage, pageWidth: Double, pageHeight: Double, box: (Double, Double, Double, Double))
        throws(ConvertError)
    {
        var colorSpace = image.components == 1 ? "/DeviceGray" : "/DeviceRGB"
        // A profile that does not parse or does not match the components would make viewers fail.
        if let icc = image.icc, !icc.isEmpty, ColorProfiles.channelCount(icc) == image.components {
            let iccObject = allocate()
            let alternate = image.components == 1 ? "/DeviceGray" : "/DeviceRGB"
            try object(iccObject, "/N \(image.components) /Alternate \(alternate)", stream: icc)
            colorSpace = "[/ICCBased \(iccObject) 0 R]"
        }
        let imageObject = allocate()
        try object(
            imageObject,
            "/Type /XObject /Subtype /Image /Width \(image.width) /Height \(image.height) /ColorSpace \(colorSpace) /BitsPerComponent 8 /Filter /DCTDecode",
            stream: image.jpeg)
        let content =
            "q \(Self.number(box.2)) 0 0 \(Self.number(box.3)) \(Self.number(box.0)) \(Self.number(box.1)) cm /Im0 Do Q"
        let contentObject = allocate()
        try object(contentObject, "", stream: Array(content.utf8))
        let pageObject = allocate()
        try object(
            pageObject,
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(Self.number(pageWidth)) \(Self.number(pageHeight))] /Resources << /XObject << /Im0 \(imageObject) 0 R >> >> /Contents \(contentObject) 0 R >>"
        )
        pages.append(pageObject)
    }

    /// Writes the page tree, catalog, cross-reference table and trailer, and closes the file.
    package func finish() throws(ConvertError) {
        precondition(!pages.isEmpty, "a PDF has at least one page")
        try object(
            2, "<< /Type /Pages /Kids [\(pages.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        try object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let xref = offset
        var table = "xref\n0 \(offsets.count)\n0000000000 65535 f \n"
        for number in 1..<offsets.count {
            table +=
                String(repeating: "0", count: max(0, 10 - String(offsets[number]).count))
                + "\(offsets[number]) 00000 n \n"
        }
        table += "trailer\n<< /Size \(offsets.count) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        try write(table)
        guard fsync(fd) == 0 else { throw writeError(errno) }
        let closed = close(fd)
        fd = -1
        guard closed == 0 else { throw writeError(errno) }
    }

    private func writeError(_ code: Int32) -> ConvertError {
        ConvertError(
            code: .deviceIo, message: "Could not write \(path).", path: path,
            underlying: String(cString: strerror(code)))
    }

    /// A PDF real number: at most 3 decimals, no exponent.
    package static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return fixed(rounded, digits: 3)
    }
}
