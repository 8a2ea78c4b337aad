/* xc_fb_names.h: names for SIGPROC's telescope_id and machine_id, and the
 * beam width PRESTO puts in an .inf, as PRESTO's src/sigproc_fb.c
 * (get_telescope_name, get_backend_name) and src/misc_utils.c
 * (beam_halfwidth) have them. */
#ifndef XC_FB_NAMES_H
#define XC_FB_NAMES_H

#ifdef __cplusplus
extern "C" {
#endif

/* "Parkes", "GBT", ...; "Unknown" for an id PRESTO does not list. */
const char *xc_fb_telescope_name(int telescope_id);
/* "BPP", "SPIGOT", ...; "Unknown" likewise. */
const char *xc_fb_machine_name(int machine_id);
/* Beam FWHM in arcsec at centre frequency fctr (MHz): 1.2 lambda / D for the
 * dishes PRESTO knows, else its default of one degree. */
double xc_fb_beam_arcsec(int telescope_id, double fctr);

#ifdef __cplusplus
}
#endif
#endif
