/* xc_error.h: status codes and error messages shared by every crosscheck module.
 *
 * Style follows GSL (one enum, xc_strerror) and dedisp (each function documents
 * the codes it returns).  Library code never prints and never exits: it fills an
 * xc_error and returns its code, and the caller (cli/) decides what to show. */
#ifndef XC_ERROR_H
#define XC_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_OK = 0,
    XC_EINVAL,     /* invalid argument or option value */
    XC_EFORMAT,    /* a file's content is malformed (header, field, size) */
    XC_EIO,        /* open/read/write/rename failed */
    XC_ENOMEM,     /* allocation failed */
    XC_EUNAVAIL,   /* implementation not available here (e.g. no CUDA device) */
    XC_EMISMATCH,  /* inputs that must agree do not (shapes, DM lists) */
    XC_EDEVICE     /* accelerator runtime error */
} xc_status;

typedef struct {
    xc_status code;
    char msg[1024];
} xc_error;

/* Sets err (if not NULL) and returns code, so callers can `return xc_error_set(...)`. */
xc_status xc_error_set(xc_error *err, xc_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears err to XC_OK with an empty message. */
void xc_error_clear(xc_error *err);
const char *xc_strerror(xc_status code);
/* Process exit code for a status: 0 for XC_OK, 2 for any error (1 means "disagree"). */
int xc_status_exit_code(xc_status code);

#ifdef __cplusplus
}
#endif
#endif
