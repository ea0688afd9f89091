/* A C program that runs a model lamina compiled, with no Python.
 *
 *     classify IN.npy OUT.npy
 *
 * The model is linked into the program (`model.so`, compiled with
 * `lamina compile MODEL.onnx --name model -o model.so`): its descriptor is
 * `model_model()`. The input array goes to the model's first input, and its
 * first output is written to OUT.npy.
 */
#include <stdio.h>

#include "lamina.h"
#include "npy.h"

const lamina_model *model_model(void);

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN.npy OUT.npy\n", argv[0]);
        return 2;
    }
    const lamina_model *model = model_model();
    printf("model '%s' for %s, built by lamina %s\n", model->name, model->target,
           model->lamina_version);
    for (int32_t i = 0; i < model->num_inputs; i++)
        printf("  input  %s (rank %d)\n", model->inputs[i].name, (int)model->inputs[i].rank);
    for (int32_t i = 0; i < model->num_outputs; i++)
        printf("  output %s (rank %d)\n", model->outputs[i].name, (int)model->outputs[i].rank);

    char err[512];
    lamina_npy x;
    if (lamina_npy_read(argv[1], &x, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    lamina_session *session;
    lamina_status st = lamina_session_create(model, &session);
    if (st != LAMINA_OK) {
        fprintf(stderr, "cannot create a session: %s\n", lamina_status_string(st));
        return 1;
    }
    lamina_tensor input = {model->inputs[0].name, x.dtype, x.rank, x.shape, x.data};
    st = lamina_run(session, &input, 1);
    if (st != LAMINA_OK) {
        fprintf(stderr, "%s: %s\n", lamina_status_string(st), lamina_session_error(session));
        return 1;
    }
    const lamina_tensor *y = lamina_session_output(session, 0);
    printf("wrote %s: %s, %lld values\n", argv[2], y->name,
           (long long)lamina_numel(y->rank, y->shape));
    int rc = lamina_npy_write(argv[2], y, err, sizeof err) == 0 ? 0 : 1;
    if (rc) fprintf(stderr, "%s\n", err);
    lamina_session_destroy(session);
    lamina_npy_free(&x);
    return rc;
}
