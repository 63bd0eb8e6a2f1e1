// offconvert: the command users run. It only picks the engine for the command and becomes it
// (exec: same PID, terminal, signals), so a photo command never loads FFmpeg and a video command
// starts one Swift program, not two:
//   offconvert-photo  the whole command line with the photo engine (no FFmpeg, ~15 ms to start)
//   offconvert-media  the same with the video engine too (FFmpeg, ~70 ms to start)
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// The commands whose work always needs FFmpeg: the cases of OffconvertCLI's MediaWork that
// `alwaysNeedsEngine` (a test keeps the two lists equal). Anything else goes to offconvert-photo, which
// still hands a command on to offconvert-media when it turns out to need it (convert --to mp4).
static const char *const media_commands[] = {
    "send-to-windows", "compress", "email", "gif", "extract-audio", "strip-location", "info", "capabilities", "live-photo", NULL,
};

int main(int argc, char **argv) {
    const char *engine = "offconvert-photo";
    for (const char *const *name = media_commands; argc > 1 && *name != NULL; name++) {
        if (strcmp(argv[1], *name) == 0) {
            engine = "offconvert-media";
            break;
        }
    }
    // The engines are installed beside this executable; find it through any symlink.
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        fprintf(stderr, "Error: offconvert cannot find where it is installed (%s).\n", strerror(errno));
        return 1;
    }
    self[length] = '\0';
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dirname(self), engine) >= (int)sizeof path) {
        fprintf(stderr, "Error: offconvert is installed under too long a path.\n");
        return 1;
    }
    argv[0] = path;
    execv(path, argv);
    int failure = errno;
    // The Debian packages ship the video engine on its own (offconvert-video), so a photo-only
    // install reaches here for a video command: say which package brings it.
    int is_media = strcmp(engine, "offconvert-media") == 0;
    fprintf(stderr,
            "Error: offconvert could not start %s (%s). Reinstall offconvert: its three executables "
            "belong in the same folder%s.\n",
            path, strerror(failure), is_media ? " (with the Debian packages, install offconvert-video)" : "");
    return 1;
}
