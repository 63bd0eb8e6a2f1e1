#include "CJXL.h"
#include <dlfcn.h>
#include <stddef.h>

#define OFFC_STRING(x) #x
#define OFFC_VERSION(major, minor) OFFC_STRING(major) "." OFFC_STRING(minor)

const char *const offc_jxl_soname = "libjxl.so." OFFC_VERSION(JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION);
const char *const offc_jxl_threads_soname = "libjxl_threads.so." OFFC_VERSION(JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION);

// Looks `name` up in `library` into `loaded.name`; a missing one fails the whole load.
#define OFFC_JXL_LOOKUP(library, name) \
    if ((loaded.name = (__typeof__(&name))dlsym(library, #name)) == NULL) return -1;
#define OFFC_JXL_LOOKUP_MAIN(name) OFFC_JXL_LOOKUP(main, name)
#define OFFC_JXL_LOOKUP_THREADS(name) OFFC_JXL_LOOKUP(threads, name)

static int lookup(void *main, void *threads, offc_jxl_api *api) {
    offc_jxl_api loaded;
    OFFC_JXL_FUNCTIONS(OFFC_JXL_LOOKUP_MAIN)
    OFFC_JXL_THREAD_FUNCTIONS(OFFC_JXL_LOOKUP_THREADS)
    *api = loaded;
    return 0;
}

int offc_jxl_open(const char *libjxl, const char *libjxl_threads, offc_jxl_api *api) {
    void *main = dlopen(libjxl, RTLD_NOW | RTLD_LOCAL);
    if (main == NULL) return -1;
    void *threads = dlopen(libjxl_threads, RTLD_NOW | RTLD_LOCAL);
    if (threads == NULL) {
        dlclose(main);
        return -1;
    }
    if (lookup(main, threads, api) != 0) {
        dlclose(threads);
        dlclose(main);
        return -1;
    }
    return 0;
}
