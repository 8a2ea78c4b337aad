/* The colour maps (xc_report.h): viridis and grey, with and without cairo. */
#include "reports/xc_report.h"

#include <math.h>
#include <stdint.h>

/* viridis sampled at 0, 0.1, ..., 1 (matplotlib's table); linear in between. */
static const uint8_t viridis[11][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d},
    {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c}, {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70},
    {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25},
};

void xc_cmap_rgb(xc_cmap m, double v, uint8_t rgb[3])
{
    if (isnan(v)) {
        rgb[0] = 255, rgb[1] = 0, rgb[2] = 255;
        return;
    }
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    if (m == XC_CMAP_GREY) {
        rgb[0] = rgb[1] = rgb[2] = (uint8_t)lround(255 * v);
        return;
    }
    double u = v * 10;
    int i = (int)u;
    if (i >= 10)
        i = 9;
    double f = u - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (uint8_t)lround(viridis[i][c] + f * (viridis[i + 1][c] - viridis[i][c]));
}
