/* npy.h: read and write numpy's .npy files as lamina_tensors (header-only).
 *
 *     lamina_npy a;
 *     if (lamina_npy_read("in.npy", &a, err, sizeof err) != 0) ...
 *     lamina_tensor t = {"input", a.dtype, a.rank, a.shape, a.data};
 *     ...
 *     lamina_npy_write("out.npy", lamina_session_output(s, 0), err, sizeof err);
 *     lamina_npy_free(&a);
 *
 * Little-endian, C-order arrays of lamina.h's element types (what numpy.save
 * writes on these machines); anything else is refused with a message.
 */
#ifndef LAMINA_NPY_H
#define LAMINA_NPY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lamina.h"

#define LAMINA_NPY_MAX_RANK 32

typedef struct lamina_npy {
    lamina_dtype dtype;
    int32_t rank;
    int64_t shape[LAMINA_NPY_MAX_RANK];
    void *data;
} lamina_npy;

static const struct { const char *descr; lamina_dtype dtype; } lamina_npy_types[] = {
    {"<f4", LAMINA_FLOAT32}, {"<f8", LAMINA_FLOAT64}, {"<f2", LAMINA_FLOAT16},
    {"|i1", LAMINA_INT8}, {"|u1", LAMINA_UINT8}, {"<i2", LAMINA_INT16},
    {"<u2", LAMINA_UINT16}, {"<i4", LAMINA_INT32}, {"<u4", LAMINA_UINT32},
    {"<i8", LAMINA_INT64}, {"<u8", LAMINA_UINT64}, {"|b1", LAMINA_BOOL},
};

static inline int lamina_npy_fail(char *err, size_t n, const char *path, const char *what) {
    snprintf(err, n, "%s: %s", path, what);
    return -1;
}

/* The value of `key` in the header dict: a pointer just after "'key':" and spaces. */
static inline const char *lamina_npy_field(const char *header, const char *key) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, "'%s':", key);
    const char *p = strstr(header, pattern);
    if (p == NULL) return NULL;
    p += strlen(pattern);
    while (*p == ' ') p++;
    return p;
}

/* Read `path` into `out` (free its data with lamina_npy_free); 0, or -1 with a
 * message in `err`. */
static inline int lamina_npy_read(const char *path, lamina_npy *out, char *err, size_t n) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return lamina_npy_fail(err, n, path, "cannot open the file");
    unsigned char magic[10];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
        fclose(f);
        return lamina_npy_fail(err, n, path, "not a .npy file");
    }
    size_t hlen;
    if (magic[6] == 1) {
        if (fread(magic + 8, 1, 2, f) != 2) { fclose(f); return lamina_npy_fail(err, n, path, "truncated"); }
        hlen = (size_t)magic[8] | (size_t)magic[9] << 8;
    } else {
        unsigned char b[4];
        if (fread(b, 1, 4, f) != 4) { fclose(f); return lamina_npy_fail(err, n, path, "truncated"); }
        hlen = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 | (size_t)b[3] << 24;
    }
    char *header = (char *)malloc(hlen + 1);
    if (header == NULL || fread(header, 1, hlen, f) != hlen) {
        free(header);
        fclose(f);
        return lamina_npy_fail(err, n, path, "truncated header");
    }
    header[hlen] = '\0';
    const char *descr = lamina_npy_field(header, "descr");
    const char *order = lamina_npy_field(header, "fortran_order");
    const char *shape = lamina_npy_field(header, "shape");
    int ok = descr != NULL && order != NULL && shape != NULL && *shape == '(';
    if (ok && strncmp(order, "False", 5) != 0) ok = 0;
    out->dtype = (lamina_dtype)0;
    for (size_t i = 0; ok && i < sizeof lamina_npy_types / sizeof lamina_npy_types[0]; i++)
        if (strncmp(descr + 1, lamina_npy_types[i].descr, 3) == 0 && descr[4] == '\'')
            out->dtype = lamina_npy_types[i].dtype;
    if (ok && out->dtype == 0) {
        free(header);
        fclose(f);
        return lamina_npy_fail(err, n, path, "an element type lamina.h does not name (or big-endian)");
    }
    for (const char *p = ok ? shape + 1 : ""; ok && *p && *p != ')';) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        if (out->rank == LAMINA_NPY_MAX_RANK) { ok = 0; break; }
        char *end;
        out->shape[out->rank++] = strtoll(p, &end, 10);
        if (end == p) ok = 0;
        p = end;
    }
    free(header);
    if (!ok) { fclose(f); return lamina_npy_fail(err, n, path, "a header this reader does not take (Fortran order?)"); }
    size_t bytes = (size_t)lamina_numel(out->rank, out->shape) * lamina_dtype_size(out->dtype);
    out->data = malloc(bytes ? bytes : 1);
    if (out->data == NULL) { fclose(f); return lamina_npy_fail(err, n, path, "out of memory"); }
    if (fread(out->data, 1, bytes, f) != bytes) {
        fclose(f);
        free(out->data);
        out->data = NULL;
        return lamina_npy_fail(err, n, path, "truncated data");
    }
    fclose(f);
    return 0;
}

static inline void lamina_npy_free(lamina_npy *a) {
    free(a->data);
    a->data = NULL;
}

/* Write `t` to `path` as .npy (format 1.0); 0, or -1 with a message in `err`. */
static inline int lamina_npy_write(const char *path, const lamina_tensor *t, char *err, size_t n) {
    const char *descr = NULL;
    for (size_t i = 0; i < sizeof lamina_npy_types / sizeof lamina_npy_types[0]; i++)
        if (lamina_npy_types[i].dtype == t->dtype) descr = lamina_npy_types[i].descr;
    if (descr == NULL) return lamina_npy_fail(err, n, path, "an element type .npy cannot hold");
    char dict[1024];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int32_t i = 0; i < t->rank && len < 900; i++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%lld,%s", (long long)t->shape[i],
                        i + 1 < t->rank ? " " : "");
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    int total = 10 + len + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (f == NULL) return lamina_npy_fail(err, n, path, "cannot create the file");
    unsigned hlen = (unsigned)(len + pad + 1);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    size_t bytes = (size_t)lamina_numel(t->rank, t->shape) * lamina_dtype_size(t->dtype);
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)len, f) == (size_t)len;
    for (int i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(t->data, 1, bytes, f) == bytes;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : lamina_npy_fail(err, n, path, "cannot write the file");
}

#endif /* LAMINA_NPY_H */
