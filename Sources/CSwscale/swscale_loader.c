#include "CSwscale.h"
#include <dlfcn.h>
#include <stddef.h>

#define OFFC_STRING(x) #x
#define OFFC_SONAME(major) "libswscale.so." OFFC_STRING(major)

const char *const offc_swscale_soname = OFFC_SONAME(LIBSWSCALE_VERSION_MAJOR);

#define OFFC_SWSCALE_LOOKUP(name) \
    if ((loaded.name = (__typeof__(&name))dlsym(library, #name)) == NULL) { dlclose(library); return -1; }

int offc_swscale_open(const char *libswscale, offc_swscale_api *api) {
    void *library = dlopen(libswscale, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return -1;
    offc_swscale_api loaded;
    OFFC_SWSCALE_FUNCTIONS(OFFC_SWSCALE_LOOKUP)
    *api = loaded;
    return 0;
}
