internal import CFFmpeg
import ConvertCore

/// Owns an `AVFilterGraph` (`avfilter_graph_alloc`), freed with `avfilter_graph_free`, with one
/// source (`buffer` for video, `abuffer` for audio) and one sink (`buffersink`/`abuffersink`).
///
/// The filters between them come from a libavfilter description such as
/// `scale=-2:720,format=yuv420p`, so scaling, tone mapping, palettes and resampling all use the
/// library's own well-tested filters. libavfilter is loaded by the first graph built
/// (``AVFilterLibrary``), so work that builds none never loads it.
package final class FilterGraph {
    /// The file being converted, for error messages.
    let path: String
    /// libavfilter's functions, which every call on the graph goes through.
    private let api: offc_avfilter_api
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>

    /// What one ``pull(into:)`` produced.
    package enum Step: Equatable {
        /// A filtered frame was written into the caller's frame.
        case frame
        /// The graph needs more input.
        case needsInput
        /// The graph is flushed.
        case endOfStream
    }

    /// Builds a video graph fed with frames described by `input`.
    package convenience init(video input: VideoInput, description: String, path: String) throws(ConvertError) {
        let arguments =
            "video_size=\(input.width)x\(input.height):pix_fmt=\(input.pixelFormat.rawValue)"
            + ":time_base=\(input.timeBase)"
            + ":pixel_aspect=\(max(input.sampleAspect.numerator, 1))/\(max(input.sampleAspect.denominator, 1))"
        try self.init(
            source: "buffer", arguments: arguments, sink: "buffersink", description: description,
            path: path, frameSize: 0)
    }

    /// Builds an audio graph fed with frames described by `input`; with a `frameSize`, the sink
    /// returns frames of exactly that many samples (the last may be shorter), as fixed-size
    /// encoders such as AAC need.
    package convenience init(audio input: AudioInput, description: String, frameSize: Int32, path: String)
        throws(ConvertError)
    {
        let arguments =
            "time_base=\(input.timeBase):sample_rate=\(input.sampleRate)"
            + ":sample_fmt=\(input.sampleFormatName):channel_layout=\(input.channelLayout)"
        try self.init(
            source: "abuffer", arguments: arguments, sink: "abuffersink", description: description,
            path: path, frameSize: frameSize)
    }

    /// Filters that open files or sockets by name (`movie=`, `sendcmd=`, `zmq`); a description
    /// naming one would let whatever built it read or reach anything.
    static let openingFilters: Set<String> = ["movie", "amovie", "sendcmd", "asendcmd", "zmq", "azmq"]

    /// The filter names of a description (the text before each `=`, between `,` and `;`).
    static func filterNames(_ description: String) -> [String] {
        description.split(whereSeparator: { $0 == "," || $0 == ";" }).map { part in
            String(part.split(separator: "=", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }
    }

    private init(
        source sourceName: String, arguments: String, sink sinkName: String, description: String,
        path: String, frameSize: Int32
    ) throws(ConvertError) {
        // Descriptions are built by the engine from numbers and fixed names, never from user text.
        precondition(
            Set(FilterGraph.filterNames(description)).isDisjoint(with: FilterGraph.openingFilters),
            "a filter graph must not open files or sockets")
        self.path = path
        let api = try AVFilterLibrary.functions()
        self.api = api
        guard let graph = api.avfilter_graph_alloc() else {
            throw ConvertError(code: .internalMemory, message: "Out of memory building filters.", path: path)
        }
        var source: UnsafeMutablePointer<AVFilterContext>? = nil
        var sink: UnsafeMutablePointer<AVFilterContext>? = nil
        var code = api.avfilter_graph_create_filter(
            &source, api.avfilter_get_by_name(sourceName), "in", arguments, nil, graph)
        if code >= 0 {
            code = api.avfilter_graph_create_filter(&sink, api.avfilter_get_by_name(sinkName), "out", nil, nil, graph)
        }
        guard code >= 0, let source, let sink else {
            var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
            api.avfilter_graph_free(&owned)
            throw FFmpeg.error(code, "create the filter endpoints", path: path, category: .internal)
        }
        self.graph = graph
        self.source = source
        self.sink = sink
        // The graph's open end "in" is our source's output; its open end "out" is our sink's input.
        // avfilter_graph_parse_ptr takes both lists and hands back whatever stayed unlinked, which
        // is what gets freed.
        var outputList = api.avfilter_inout_alloc()
        var inputList = api.avfilter_inout_alloc()
        guard let outputs = outputList, let inputs = inputList else {
            api.avfilter_inout_free(&outputList)
            api.avfilter_inout_free(&inputList)
            throw ConvertError(code: .internalMemory, message: "Out of memory building filters.", path: path)
        }
        outputs.pointee.name = av_strdup("in")
        outputs.pointee.filter_ctx = source
        outputs.pointee.pad_idx = 0
        outputs.pointee.next = nil
        inputs.pointee.name = av_strdup("out")
        inputs.pointee.filter_ctx = sink
        inputs.pointee.pad_idx = 0
        inputs.pointee.next = nil
        code = api.avfilter_graph_parse_ptr(graph, description, &inputList, &outputList, nil)
        api.avfilter_inout_free(&inputList)
        api.avfilter_inout_free(&outputList)
        try FFmpeg.check(code, "set up the filters '\(description)'", path: path, category: .internal)
        try FFmpeg.check(
            api.avfilter_graph_config(graph, nil), "configure the filters", path: path, category: .internal)
        if frameSize > 0 { api.av_buffersink_set_frame_size(sink, UInt32(frameSize)) }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
        api.avfilter_graph_free(&owned)
    }

    /// Feeds one frame, or `nil` to flush. The graph takes the frame's buffers.
    package func push(_ frame: Frame?) throws(ConvertError) {
        let code =
            frame?.withUnsafePointer { api.av_buffersrc_add_frame_flags(source, $0, 0) }
            ?? api.av_buffersrc_add_frame_flags(source, nil, 0)
        try FFmpeg.check(code, "filter", path: path, category: .internal)
    }

    /// Pulls the next filtered frame into `frame`.
    package func pull(into frame: Frame) throws(ConvertError) -> Step {
        let code = frame.withUnsafePointer { api.av_buffersink_get_frame(sink, $0) }
        if code == FFmpeg.again { return .needsInput }
        if code == FFmpeg.endOfFile { return .endOfStream }
        try FFmpeg.check(code, "filter", path: path, category: .internal)
        return .frame
    }

    /// The time base of the frames the sink returns.
    package var outputTimeBase: Rational { Rational(api.av_buffersink_get_time_base(sink)) }
    /// Output frame width (video).
    package var outputWidth: Int32 { api.av_buffersink_get_w(sink) }
    /// Output frame height (video).
    package var outputHeight: Int32 { api.av_buffersink_get_h(sink) }
    /// Output pixel format (video).
    package var outputPixelFormat: PixelFormat { PixelFormat(rawValue: api.av_buffersink_get_format(sink)) }
    /// Output frame rate, when the graph knows it.
    package var outputFrameRate: Rational { Rational(api.av_buffersink_get_frame_rate(sink)) }
    /// Output sample aspect ratio (video).
    package var outputSampleAspect: Rational { Rational(api.av_buffersink_get_sample_aspect_ratio(sink)) }
    /// What a video graph's source is fed with.
    package struct VideoInput {
        package var width: Int32
        package var height: Int32
        package var pixelFormat: PixelFormat
        var timeBase: Rational
        package var sampleAspect: Rational

        package init(width: Int32, height: Int32, pixelFormat: PixelFormat, timeBase: Rational, sampleAspect: Rational)
        {
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.timeBase = timeBase
            self.sampleAspect = sampleAspect
        }
    }

    /// What an audio graph's source is fed with.
    package struct AudioInput {
        var sampleRate: Int32
        var sampleFormatName: String
        var channelLayout: String
        var timeBase: Rational

        package init(sampleRate: Int32, sampleFormatName: String, channelLayout: String, timeBase: Rational) {
            self.sampleRate = sampleRate
            self.sampleFormatName = sampleFormatName
            self.channelLayout = channelLayout
            self.timeBase = timeBase
        }
    }
}
