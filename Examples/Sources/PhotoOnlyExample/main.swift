import ConvertCore  // the photo half alone: no FFmpeg is linked or loaded
import Glibc  // exit

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: PhotoOnlyExample PHOTO FOLDER (an existing folder)")
    exit(64)
}
let request = PhotoRequest(inputPath: arguments[1], format: .jpeg, quality: 85, outputDirectory: arguments[2])
do throws(ConvertError) {
    let result = try await PhotoConverter.convert(request).result()
    print("wrote", result.outputs.map(\.path))
} catch {
    print(error.publicMessage)
    exit(1)
}
