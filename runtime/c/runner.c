/* runner.c: run a lamina library on .npy inputs, with no Python (`lamina run`).
 *
 *     lamina-runner MODEL.so OUTDIR [--threads N] NAME=IN.npy ...
 *
 * Loads the library with dlopen, runs it once through the C API (lamina.h) and
 * writes output i to OUTDIR/i.npy. `lamina run` builds this program for the
 * library's target and runs it natively or under qemu-user; errors go to
 * stderr with exit status 1.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lamina.h"
#include "npy.h"

static int die(const char *what, const char *detail) {
    fprintf(stderr, "lamina-runner: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) return die("usage: lamina-runner MODEL.so OUTDIR [--threads N] NAME=IN.npy ...", NULL);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return die("cannot load the library", dlerror());
    lamina_get_model_fn get = (lamina_get_model_fn)dlsym(lib, "lamina_get_model");
    if (get == NULL) return die("not a lamina library with the C runtime (no lamina_get_model)", argv[1]);
    const lamina_model *model = get();
    lamina_status st = lamina_model_check(model);
    if (st != LAMINA_OK) return die("cannot use the model", lamina_status_string(st));
    int32_t threads = 0;
    int count = 0;
    lamina_npy *arrays = (lamina_npy *)calloc((size_t)argc, sizeof *arrays);
    lamina_tensor *inputs = (lamina_tensor *)calloc((size_t)argc, sizeof *inputs);
    char err[512];
    if (arrays == NULL || inputs == NULL) return die("out of memory", NULL);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
            continue;
        }
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) return die("expected NAME=FILE.npy, got", argv[i]);
        *eq = '\0';
        if (lamina_npy_read(eq + 1, &arrays[count], err, sizeof err) != 0) return die(err, NULL);
        inputs[count] = (lamina_tensor){argv[i], arrays[count].dtype, arrays[count].rank,
                                        arrays[count].shape, arrays[count].data};
        count++;
    }
    if (threads > 0) model->set_num_threads(threads);
    lamina_session *session;
    st = lamina_session_create(model, &session);
    if (st != LAMINA_OK) return die("cannot create a session", lamina_status_string(st));
    st = lamina_run(session, inputs, count);
    if (st != LAMINA_OK) return die(lamina_status_string(st), lamina_session_error(session));
    for (int32_t i = 0; i < model->num_outputs; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.npy", argv[2], (int)i);
        if (lamina_npy_write(path, lamina_session_output(session, i), err, sizeof err) != 0)
            return die(err, NULL);
    }
    lamina_session_destroy(session);
    for (int i = 0; i < count; i++) lamina_npy_free(&arrays[i]);
    free(arrays);
    free(inputs);
    return 0;
}
