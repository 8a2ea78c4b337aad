/* xc_fb_names.c: see xc_fb_names.h.  The tables are PRESTO's (Scott Ransom,
 * https://github.com/scottransom/presto, src/sigproc_fb.c): the same ids,
 * names and dish diameters (Arecibo's illuminated 200 m, not 305 m). */
#include "core/io/xc_fb_names.h"

#include <stddef.h>

typedef struct {
    int id;
    const char *name;
    double dish_m;   /* 0: PRESTO's default beam of one degree */
} named;

static const named telescopes[] = {
    {0, "Fake", 0},     {1, "Arecibo", 200}, {2, "Ooty", 0},        {3, "Nancay", 100}, {4, "Parkes", 64},
    {5, "Jodrell", 76}, {6, "GBT", 100},     {7, "GMRT", 0},        {8, "Effelsberg", 100},
    {9, "ATA", 0},      {10, "SRT", 0},      {11, "LOFAR", 0},      {12, "VLA", 0},     {20, "CHIME", 20},
    {21, "FAST", 350},  {30, "MWA", 0},      {64, "MeerKAT", 0},    {65, "KAT-7", 0},
};

static const named machines[] = {
    {0, "FAKE", 0},       {1, "PSPM", 0},      {2, "WAPP", 0},     {3, "AOFTM", 0},    {4, "BPP", 0},
    {5, "OOTY", 0},       {6, "SCAMP", 0},     {7, "SPIGOT", 0},   {11, "BG/P", 0},    {12, "PDEV", 0},
    {20, "CHIME+PSR", 0}, {30, "MWA-VCS", 0},  {31, "MWAX-VCS", 0}, {32, "MWAX-RTB", 0}, {64, "KAT", 0},
    {65, "KAT-DC2", 0},
};

static const named *find(const named *t, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return &t[i];
    return NULL;
}

const char *xc_fb_telescope_name(int id)
{
    const named *e = find(telescopes, sizeof telescopes / sizeof telescopes[0], id);
    return e ? e->name : "Unknown";
}

const char *xc_fb_machine_name(int id)
{
    const named *e = find(machines, sizeof machines / sizeof machines[0], id);
    return e ? e->name : "Unknown";
}

double xc_fb_beam_arcsec(int id, double fctr)
{
    const named *e = find(telescopes, sizeof telescopes / sizeof telescopes[0], id);
    if (!e || e->dish_m <= 0 || !(fctr > 0))
        return 3600.0;
    /* beam_halfwidth: 0.5 * 1.2 * SOL / (freq * 1e6) / dish * RADTODEG * 3600, doubled */
    const double sol = 299792458.0, radtodeg = 57.29577951308232;
    return 1.2 * sol / (fctr * 1e6) / e->dish_m * radtodeg * 3600.0;
}
