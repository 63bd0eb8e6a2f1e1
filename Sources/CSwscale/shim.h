#include <libswscale/swscale.h>
#include <libavutil/pixfmt.h>
