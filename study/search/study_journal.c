/* A study's checkpoints: DIR/study.json names the study, DIR/journal/<tag>.csv
 * holds the finished rows.  Each journal line is a detections.csv row, a tab
 * and the FNV-1a hash of the row in 16 hex digits; it is written and fsync'd
 * once its search is done, so a SIGKILL loses at most the line being written,
 * which the hash (or the missing newline) gives away and the next run drops. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/xc_atomic.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_hash.h"
#include "study/spec/study_internal.h"

struct xc_study_journal {
    int fd;
    char path[4200];
};

static uint64_t line_hash(const char *s, size_t n) { return xc_hash64(XC_HASH_INIT, s, n); }

xc_status xc_study_dir_init(const xc_study *st, const char *dir, xc_error *err)
{
    char path[4300];
    xc_status e = xc_mkdirs(dir, err);
    if (e)
        return e;
    snprintf(path, sizeof path, "%s/journal", dir);
    if ((e = xc_mkdirs(path, err)))
        return e;
    snprintf(path, sizeof path, "%s/study.json", dir);
    char want[64];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)st->hash);
    json_error_t je;
    json_t *old = json_load_file(path, 0, &je);
    if (old) {
        const char *h = json_string_value(json_object_get(old, "study_hash"));
        int same = h && !strcmp(h, want);
        char got[64];
        snprintf(got, sizeof got, "%s", h ? h : "(none)");
        json_decref(old);
        if (!same)
            return xc_error_set(err, XC_EINVAL, "%s: holds another study (hash %s; %s gives %s): use another -out "
                                "directory", path, got, st->path, want);
    } else if (access(path, F_OK) == 0) {
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s", path, je.line, je.text);
    }
    /* The spec and the population spec, so that -merge needs only the directory. */
    char cpath[4300];
    snprintf(cpath, sizeof cpath, "%s/spec.json", dir);
    if ((e = xc_study_write_text(cpath, st->spec_copy, strlen(st->spec_copy), err)))
        return e;
    snprintf(cpath, sizeof cpath, "%s/population.json", dir);
    FILE *pf = fopen(st->pop_path, "rb");
    char *pbuf = NULL;
    long plen = -1;
    if (pf && !fseek(pf, 0, SEEK_END) && (plen = ftell(pf)) >= 0 && !fseek(pf, 0, SEEK_SET) &&
        (pbuf = malloc((size_t)plen + 1)) && fread(pbuf, 1, (size_t)plen, pf) == (size_t)plen) {
        fclose(pf);
        pf = NULL;
        e = xc_study_write_text(cpath, pbuf, (size_t)plen, err);
    } else {
        e = xc_error_set(err, XC_EIO, "%s: cannot read: %s", st->pop_path, strerror(errno));
    }
    if (pf)
        fclose(pf);
    free(pbuf);
    if (e)
        return e;
    json_t *canon = json_loads(st->canonical, 0, &je);
    json_t *o = json_object();
    if (!canon || !o) {
        json_decref(canon);
        json_decref(o);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    json_object_set_new(o, "study_hash", json_string(want));
    json_object_set_new(o, "n", json_integer((json_int_t)st->n));
    json_object_set_new(o, "spec_file", json_string(st->path));
    json_object_set_new(o, "study", canon);
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    if (!text)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    e = xc_study_write_text(path, text, strlen(text), err);
    free(text);
    return e;
}

/* Reads one journal: its good lines become rows; *good_len gets the length
 * of the prefix made of good lines (what a writer keeps). */
static xc_status read_one(const xc_study *st, const char *path, xc_study_rows *rows, long *good_len, xc_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        if (errno == ENOENT) {
            *good_len = 0;
            return XC_OK;
        }
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long pos = 0, lineno = 0;
    xc_status e = XC_OK;
    *good_len = 0;
    while ((n = getline(&line, &cap, fp)) > 0) {
        lineno++;
        /* A line without its newline, or whose hash is wrong, is the torn end of
         * a killed run: it and anything after it are dropped. */
        if (line[n - 1] != '\n')
            break;
        line[--n] = 0;
        char *tab = strrchr(line, '\t');
        if (!tab || strlen(tab + 1) != 16)
            break;
        char want[17];
        snprintf(want, sizeof want, "%016llx", (unsigned long long)line_hash(line, (size_t)(tab - line)));
        if (strcmp(want, tab + 1))
            break;
        *tab = 0;
        if (rows->n == rows->cap) {
            size_t c2 = rows->cap ? 2 * rows->cap : 256;
            xc_study_row *p = realloc(rows->r, c2 * sizeof *p);
            if (!p) {
                e = xc_error_set(err, XC_ENOMEM, "out of memory");
                break;
            }
            rows->r = p;
            rows->cap = c2;
        }
        char where[4700];
        snprintf(where, sizeof where, "%s: line %ld", path, lineno);
        xc_study_row *r = &rows->r[rows->n];
        if ((e = xc_study_row_parse(st, line, r, where, err)))
            break;
        if (!(r->line = strdup(line))) {
            e = xc_error_set(err, XC_ENOMEM, "out of memory");
            break;
        }
        rows->n++;
        pos += (long)n + 1;
        *good_len = pos;
    }
    free(line);
    fclose(fp);
    return e;
}

xc_status xc_study_journal_read(const xc_study *st, const char *dir, xc_study_rows *rows, xc_error *err)
{
    char jdir[4300];
    snprintf(jdir, sizeof jdir, "%s/journal", dir);
    DIR *d = opendir(jdir);
    if (!d) {
        if (errno == ENOENT)
            return XC_OK;
        return xc_error_set(err, XC_EIO, "%s: cannot read: %s", jdir, strerror(errno));
    }
    /* In name order, so messages do not depend on the directory's order. */
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *de;
    xc_status e = XC_OK;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".csv"))
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                e = xc_error_set(err, XC_ENOMEM, "out of memory");
                break;
            }
            names = p;
        }
        if (!(names[nn] = strdup(de->d_name))) {
            e = xc_error_set(err, XC_ENOMEM, "out of memory");
            break;
        }
        nn++;
    }
    closedir(d);
    for (size_t i = 0; !e && i < nn; i++)
        for (size_t j = i + 1; j < nn; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; !e && i < nn; i++) {
        char path[4600];
        long good;
        snprintf(path, sizeof path, "%s/%s", jdir, names[i]);
        e = read_one(st, path, rows, &good, err);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return e;
}

xc_status xc_study_journal_open(xc_study_journal **jp, const char *dir, const char *tag, xc_error *err)
{
    *jp = NULL;
    xc_study_journal *j = calloc(1, sizeof *j);
    if (!j)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    if (snprintf(j->path, sizeof j->path, "%s/journal/%s.csv", dir, tag) >= (int)sizeof j->path) {
        free(j);
        return xc_error_set(err, XC_EINVAL, "%s: path too long", dir);
    }
    /* Cut a torn end so that appended lines start on a line of their own. */
    FILE *fp = fopen(j->path, "rb");
    long good = 0, size = 0;
    if (fp) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) > 0) {
            if (line[n - 1] != '\n')
                break;
            char *tab = strrchr(line, '\t');
            char want[17];
            if (!tab || (size_t)(line + n - 1 - (tab + 1)) != 16)
                break;
            snprintf(want, sizeof want, "%016llx", (unsigned long long)line_hash(line, (size_t)(tab - line)));
            if (strncmp(want, tab + 1, 16))
                break;
            good += (long)n;
        }
        free(line);
        fseek(fp, 0, SEEK_END);
        size = ftell(fp);
        fclose(fp);
    }
    j->fd = open(j->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (j->fd < 0 || (size != good && ftruncate(j->fd, good)) || lseek(j->fd, 0, SEEK_END) < 0) {
        xc_status e = xc_error_set(err, XC_EIO, "%s: cannot open for appending: %s", j->path, strerror(errno));
        if (j->fd >= 0)
            close(j->fd);
        free(j);
        return e;
    }
    *jp = j;
    return XC_OK;
}

xc_status xc_study_journal_append(xc_study_journal *j, const xc_study_rows *rows, size_t first, xc_error *err)
{
    for (size_t i = first; i < rows->n; i++) {
        const char *l = rows->r[i].line;
        size_t n = strlen(l);
        char *buf = malloc(n + 20);
        if (!buf)
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        memcpy(buf, l, n);
        snprintf(buf + n, 20, "\t%016llx\n", (unsigned long long)line_hash(l, n));
        size_t len = n + 18, off = 0;
        while (off < len) {
            ssize_t w = write(j->fd, buf + off, len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                free(buf);
                return xc_error_set(err, XC_EIO, "%s: write failed: %s", j->path, strerror(errno));
            }
            off += (size_t)w;
        }
        free(buf);
    }
    if (fsync(j->fd) && errno != EINVAL)
        return xc_error_set(err, XC_EIO, "%s: fsync failed: %s", j->path, strerror(errno));
    return XC_OK;
}

void xc_study_journal_close(xc_study_journal *j)
{
    if (!j)
        return;
    close(j->fd);
    free(j);
}
