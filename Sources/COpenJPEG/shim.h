#include <openjpeg.h>
#include <string.h>

// OpenJPEG reads through callbacks (a stream's read, skip and seek; the codec's error and
// warning messages) that take a void * of ours. Swift closures cannot be C callbacks that carry
// state, so the callbacks live here, over two plain structs Swift allocates and owns.

/// The bytes an OpenJPEG stream reads: a buffer Swift owns for the stream's life, and the
/// position reached. Every read and seek is bounded by `size`.
typedef struct offc_opj_source {
    const unsigned char *data;
    OPJ_SIZE_T size;
    OPJ_SIZE_T offset;
} offc_opj_source;

/// OpenJPEG's messages: the first error's text (with the count of errors), and the count of
/// warnings, so a damaged codestream is an error value rather than output on stderr.
typedef struct offc_opj_messages {
    char error[256];
    int errors;
    int warnings;
} offc_opj_messages;

static OPJ_SIZE_T offc_opj_read(void *buffer, OPJ_SIZE_T count, void *user) {
    offc_opj_source *source = (offc_opj_source *)user;
    if (source->offset >= source->size) return (OPJ_SIZE_T)-1;
    OPJ_SIZE_T left = source->size - source->offset;
    OPJ_SIZE_T n = count < left ? count : left;
    memcpy(buffer, source->data + source->offset, n);
    source->offset += n;
    return n;
}

static OPJ_OFF_T offc_opj_skip(OPJ_OFF_T count, void *user) {
    offc_opj_source *source = (offc_opj_source *)user;
    if (count < 0) {
        if ((OPJ_SIZE_T)(-count) > source->offset) return -1;
        source->offset -= (OPJ_SIZE_T)(-count);
        return count;
    }
    OPJ_SIZE_T left = source->size - source->offset;
    OPJ_SIZE_T n = (OPJ_SIZE_T)count < left ? (OPJ_SIZE_T)count : left;
    source->offset += n;
    return (OPJ_OFF_T)n;
}

static OPJ_BOOL offc_opj_seek(OPJ_OFF_T position, void *user) {
    offc_opj_source *source = (offc_opj_source *)user;
    if (position < 0 || (OPJ_SIZE_T)position > source->size) return OPJ_FALSE;
    source->offset = (OPJ_SIZE_T)position;
    return OPJ_TRUE;
}

static void offc_opj_on_error(const char *message, void *user) {
    offc_opj_messages *messages = (offc_opj_messages *)user;
    if (messages->errors++ == 0 && message) {
        strncpy(messages->error, message, sizeof messages->error - 1);
        messages->error[sizeof messages->error - 1] = 0;
    }
}

static void offc_opj_on_warning(const char *message, void *user) {
    (void)message;
    ((offc_opj_messages *)user)->warnings++;
}

static void offc_opj_quiet(const char *message, void *user) {
    (void)message;
    (void)user;
}

/// A read stream over `source` (which must outlive it), or NULL when OpenJPEG cannot allocate one.
static inline opj_stream_t *offc_opj_memory_stream(offc_opj_source *source) {
    opj_stream_t *stream = opj_stream_create(1 << 16, OPJ_TRUE);
    if (!stream) return NULL;
    opj_stream_set_user_data(stream, source, NULL);
    opj_stream_set_user_data_length(stream, source->size);
    opj_stream_set_read_function(stream, offc_opj_read);
    opj_stream_set_skip_function(stream, offc_opj_skip);
    opj_stream_set_seek_function(stream, offc_opj_seek);
    return stream;
}

/// Sends `codec`'s errors and warnings to `messages` (which must outlive it) and silences its
/// information messages, which OpenJPEG would otherwise print.
static inline void offc_opj_collect_messages(opj_codec_t *codec, offc_opj_messages *messages) {
    opj_set_error_handler(codec, offc_opj_on_error, messages);
    opj_set_warning_handler(codec, offc_opj_on_warning, messages);
    opj_set_info_handler(codec, offc_opj_quiet, NULL);
}
