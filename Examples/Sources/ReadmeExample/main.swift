import ConvertMedia  // the whole engine; `import ConvertCore` alone is the photo half, without FFmpeg

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fatalError("usage: ReadmeExample PHOTO VIDEO FOLDER (an existing folder)") }
let (photo, video, folder) = (arguments[1], arguments[2], arguments[3])

// Follow a job's events: progress, then exactly one terminal event.
let job = PhotoConverter.convert(PhotoRequest(inputPath: photo, format: .jpeg, quality: 90, outputDirectory: folder))
for await event in job.events {
    switch event {
    case .progress(let progress):
        print(progress.stage, Int(progress.fraction * 100), "%")
    case .finished(let result):
        print("wrote", result.outputs.map(\.path))
    case .failed(let error):
        // error.category: .input, .unsupported, .request, .device, .cancelled, .allowance, .internal
        // publicMessage: safe to show anyone (no paths, no library names); error.message names the
        // file, for the person at their own computer; error.underlyingDescription is for logs.
        print(error.publicMessage)
    }
}

// Or await its result, with progress delivered on your actor: here a main-actor model a screen shows.
@MainActor final class ConversionModel {
    var fraction = 0.0
    var outputs: [String] = []
    var problem: String?

    func convert(_ request: PhotoRequest) async {
        // `throws(ConvertError)` says what `catch` gets, so `error.publicMessage` compiles in a
        // Task or a task group too, where a plain `do` would catch `any Error`.
        do throws(ConvertError) {
            let result = try await PhotoConverter.convert(request).result { progress in
                self.fraction = progress.fraction
            }
            outputs = result.outputs.map(\.path)
        } catch {
            problem = error.publicMessage
        }
    }
}
let model = ConversionModel()
await model.convert(PhotoRequest(inputPath: photo, format: .png, outputDirectory: folder))
print(model.fraction, model.outputs, model.problem ?? "")

// Many files at once, from a task group: each result or its error, in the same pattern.
let names = await withTaskGroup(of: String.self) { group in
    for format in [PhotoFormat.webp, .jpeg] {
        group.addTask {
            do throws(ConvertError) {
                let request = PhotoRequest(inputPath: photo, format: format, outputDirectory: folder)
                return try await PhotoConverter.convert(request).result().outputs[0].path
            } catch {
                return error.publicMessage
            }
        }
    }
    var names: [String] = []
    for await name in group { names.append(name) }
    return names
}
print(names.sorted())

let info = try await MediaProbe.probe(path: video)
print(info.container?.videoTracks.first?.video?.dynamicRange.summary ?? "")
// "Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)"
