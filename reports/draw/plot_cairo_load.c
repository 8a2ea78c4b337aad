/* cairo loaded when the first figure is drawn, not when crosscheck starts.
 * Linked directly, libcairo.so.2 and the 19 libraries it needs (pixman,
 * fontconfig, freetype, libpng, X11 and xcb...) are mapped and relocated
 * by every process, drawing or not: some 10 of the 36 ms CPU a
 * `crosscheck` start took, and the test suite starts it hundreds of times.
 * These definitions stand in for the cairo functions the plots call (the
 * prototypes of cairo.h): the first call opens the library and each
 * forwards to the library's own function, so the figures are drawn by the
 * same code as before, to the same bytes.  Without the library no call
 * draws anything: a context's status is CAIRO_STATUS_DEVICE_ERROR and
 * cairo_status_to_string says which library could not be opened, so the
 * figure fails with that message (xc_pf_canvas_close). */
#ifdef XC_HAVE_CAIRO
#include "core/base/xc_dlsym.h"

#include <cairo.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* X(return type, name, parameters, arguments, value without the library);
 * V(name, parameters, arguments) for the functions that return nothing. */
#define XC_CAIRO_FNS(X, V)                                                                                          \
    V(cairo_arc, (cairo_t * cr, double x, double y, double r, double a1, double a2), (cr, x, y, r, a1, a2))         \
    V(cairo_clip, (cairo_t * cr), (cr))                                                                             \
    X(cairo_t *, cairo_create, (cairo_surface_t * target), (target), NULL)                                          \
    V(cairo_debug_reset_static_data, (void), ())                                                                    \
    V(cairo_destroy, (cairo_t * cr), (cr))                                                                          \
    V(cairo_fill, (cairo_t * cr), (cr))                                                                             \
    V(cairo_fill_preserve, (cairo_t * cr), (cr))                                                                    \
    X(cairo_font_options_t *, cairo_font_options_create, (void), (), NULL)                                          \
    V(cairo_font_options_destroy, (cairo_font_options_t * o), (o))                                                  \
    V(cairo_font_options_set_antialias, (cairo_font_options_t * o, cairo_antialias_t a), (o, a))                    \
    V(cairo_font_options_set_hint_metrics, (cairo_font_options_t * o, cairo_hint_metrics_t m), (o, m))              \
    V(cairo_font_options_set_hint_style, (cairo_font_options_t * o, cairo_hint_style_t s), (o, s))                  \
    X(cairo_pattern_t *, cairo_get_source, (cairo_t * cr), (cr), NULL)                                              \
    X(cairo_surface_t *, cairo_get_target, (cairo_t * cr), (cr), NULL)                                              \
    X(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t f, int w, int h), (f, w, h), NULL)             \
    X(cairo_surface_t *, cairo_image_surface_create_from_png_stream, (cairo_read_func_t rd, void *closure),         \
      (rd, closure), NULL)                                                                                          \
    X(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t * s), (s), NULL)                              \
    X(int, cairo_image_surface_get_height, (cairo_surface_t * s), (s), 0)                                           \
    X(int, cairo_image_surface_get_stride, (cairo_surface_t * s), (s), 0)                                           \
    X(int, cairo_image_surface_get_width, (cairo_surface_t * s), (s), 0)                                            \
    V(cairo_line_to, (cairo_t * cr, double x, double y), (cr, x, y))                                                \
    V(cairo_move_to, (cairo_t * cr, double x, double y), (cr, x, y))                                                \
    V(cairo_new_sub_path, (cairo_t * cr), (cr))                                                                     \
    V(cairo_paint, (cairo_t * cr), (cr))                                                                            \
    V(cairo_pattern_set_filter, (cairo_pattern_t * p, cairo_filter_t f), (p, f))                                    \
    V(cairo_rectangle, (cairo_t * cr, double x, double y, double w, double h), (cr, x, y, w, h))                    \
    V(cairo_restore, (cairo_t * cr), (cr))                                                                          \
    V(cairo_rotate, (cairo_t * cr, double angle), (cr, angle))                                                      \
    V(cairo_save, (cairo_t * cr), (cr))                                                                             \
    V(cairo_scale, (cairo_t * cr, double sx, double sy), (cr, sx, sy))                                              \
    V(cairo_select_font_face, (cairo_t * cr, const char *family, cairo_font_slant_t s, cairo_font_weight_t w),      \
      (cr, family, s, w))                                                                                           \
    V(cairo_set_dash, (cairo_t * cr, const double *dashes, int n, double offset), (cr, dashes, n, offset))          \
    V(cairo_set_font_options, (cairo_t * cr, const cairo_font_options_t *o), (cr, o))                               \
    V(cairo_set_font_size, (cairo_t * cr, double size), (cr, size))                                                 \
    V(cairo_set_line_cap, (cairo_t * cr, cairo_line_cap_t c), (cr, c))                                              \
    V(cairo_set_line_join, (cairo_t * cr, cairo_line_join_t j), (cr, j))                                            \
    V(cairo_set_line_width, (cairo_t * cr, double w), (cr, w))                                                      \
    V(cairo_set_source_rgb, (cairo_t * cr, double r, double g, double b), (cr, r, g, b))                            \
    V(cairo_set_source_rgba, (cairo_t * cr, double r, double g, double b, double a), (cr, r, g, b, a))              \
    V(cairo_set_source_surface, (cairo_t * cr, cairo_surface_t * s, double x, double y), (cr, s, x, y))             \
    V(cairo_show_text, (cairo_t * cr, const char *utf8), (cr, utf8))                                                \
    X(cairo_status_t, cairo_status, (cairo_t * cr), (cr), CAIRO_STATUS_DEVICE_ERROR)                                \
    V(cairo_stroke, (cairo_t * cr), (cr))                                                                           \
    V(cairo_surface_destroy, (cairo_surface_t * s), (s))                                                            \
    V(cairo_surface_flush, (cairo_surface_t * s), (s))                                                              \
    V(cairo_surface_mark_dirty, (cairo_surface_t * s), (s))                                                         \
    X(cairo_status_t, cairo_surface_status, (cairo_surface_t * s), (s), CAIRO_STATUS_DEVICE_ERROR)                  \
    X(cairo_status_t, cairo_surface_write_to_png_stream, (cairo_surface_t * s, cairo_write_func_t wr, void *closure), \
      (s, wr, closure), CAIRO_STATUS_DEVICE_ERROR)                                                                  \
    V(cairo_translate, (cairo_t * cr, double tx, double ty), (cr, tx, ty))

#define XC_FN_MEMBER(ret, name, params, args, fail) ret(*name) params;
#define XC_VFN_MEMBER(name, params, args) void(*name) params;

static struct {
    XC_CAIRO_FNS(XC_FN_MEMBER, XC_VFN_MEMBER)
    const char *(*cairo_status_to_string)(cairo_status_t);
    void (*cairo_text_extents)(cairo_t *, const char *, cairo_text_extents_t *);
    int ok;
} fn;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int sym(void *lib, const char *name, void *slot, size_t size)
{
    return xc_dlsym(lib, "libcairo.so.2", name, slot, size, why, sizeof why);
}

#define XC_FN_LOAD(ret, name, params, args, fail) ok = ok && sym(lib, #name, &fn.name, sizeof fn.name);
#define XC_VFN_LOAD(name, params, args) ok = ok && sym(lib, #name, &fn.name, sizeof fn.name);

static void load(void)
{
    void *lib = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "libcairo.so.2 could not be opened");
        return;
    }
    int ok = 1;
    XC_CAIRO_FNS(XC_FN_LOAD, XC_VFN_LOAD)
    ok = ok && sym(lib, "cairo_status_to_string", &fn.cairo_status_to_string, sizeof fn.cairo_status_to_string);
    ok = ok && sym(lib, "cairo_text_extents", &fn.cairo_text_extents, sizeof fn.cairo_text_extents);
    fn.ok = ok;
}

static int loaded(void)
{
    pthread_once(&once, load);
    return fn.ok;
}

#define XC_FN_DEFINE(ret, name, params, args, fail)                                                                 \
    ret name params { return loaded() ? fn.name args : (fail); }
#define XC_VFN_DEFINE(name, params, args)                                                                           \
    void name params                                                                                                \
    {                                                                                                               \
        if (loaded())                                                                                               \
            fn.name args;                                                                                           \
    }

XC_CAIRO_FNS(XC_FN_DEFINE, XC_VFN_DEFINE)

const char *cairo_status_to_string(cairo_status_t status)
{
    return loaded() ? fn.cairo_status_to_string(status) : why;
}

/* Without the library, text has no extent (the figure fails at its end). */
void cairo_text_extents(cairo_t *cr, const char *utf8, cairo_text_extents_t *extents)
{
    if (loaded())
        fn.cairo_text_extents(cr, utf8, extents);
    else
        memset(extents, 0, sizeof *extents);
}
#else
typedef int xc_plot_cairo_load_not_built;   /* PLOTS=0: nothing to load */
#endif
