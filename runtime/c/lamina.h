/* lamina.h: the C runtime API of models compiled by lamina.
 *
 * A model exported by lamina (`lamina compile MODEL.onnx -o NAME.so`, for any
 * target) carries its weights, its code, its thread pool and this runtime. It
 * exports one symbol per model, named by the model's prefix (`--name`, by
 * default the output file's stem):
 *
 *     const lamina_model *NAME_model(void);
 *
 * so that several models link into one program, and, for dlopen, the same
 * function under the name `lamina_get_model`:
 *
 *     void *lib = dlopen("resnet18.so", RTLD_NOW | RTLD_LOCAL);
 *     lamina_get_model_fn get = (lamina_get_model_fn)dlsym(lib, "lamina_get_model");
 *     const lamina_model *model = get();
 *
 * A run, with status codes instead of crashes:
 *
 *     lamina_session *s;
 *     if (lamina_session_create(model, &s) != LAMINA_OK) ...
 *     int64_t shape[] = {1, 3, 224, 224};
 *     lamina_tensor in = {"input", LAMINA_FLOAT32, 4, shape, pixels};
 *     lamina_status st = lamina_run(s, &in, 1);
 *     if (st != LAMINA_OK) fprintf(stderr, "%s\n", lamina_session_error(s));
 *     const lamina_tensor *out = lamina_session_output(s, 0);
 *     lamina_session_destroy(s);
 *
 * Inputs are matched by name (a NULL name takes the input at that position)
 * and copied into the session, so they need no particular alignment. Outputs
 * belong to the session and stay valid until its next run or its destruction.
 * Symbolic dimensions (`batch`, `seq`) are -1 in `lamina_tensor_info.shape`,
 * with their text in `dims`; a run binds them from the inputs' shapes and
 * gives each output its actual shape. A session runs one call at a time;
 * different sessions may run in different threads.
 *
 * The API is versioned: a model built for another major version than this
 * header's is refused by `lamina_model_check` (and by the helpers below).
 */
#ifndef LAMINA_H
#define LAMINA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API; a model records the version it was built for. */
#define LAMINA_API_VERSION 1

typedef enum lamina_status {
    LAMINA_OK = 0,
    /* A NULL pointer, an unknown input name, an input given twice or missing. */
    LAMINA_ERROR_ARGUMENT = 1,
    /* An input's rank or shape does not fit the model. */
    LAMINA_ERROR_SHAPE = 2,
    /* An input's element type is not the model's. */
    LAMINA_ERROR_DTYPE = 3,
    /* Memory for the session (outputs, workspace) could not be allocated. */
    LAMINA_ERROR_MEMORY = 4,
    /* The model stopped on a check of its data (an index out of range, say). */
    LAMINA_ERROR_MODEL = 5,
    /* The model was built for another version of this API. */
    LAMINA_ERROR_VERSION = 6
} lamina_status;

/* Element types (numpy's names in comments). */
typedef enum lamina_dtype {
    LAMINA_FLOAT32 = 1,  /* float32 */
    LAMINA_FLOAT64 = 2,  /* float64 */
    LAMINA_FLOAT16 = 3,  /* float16 */
    LAMINA_BFLOAT16 = 4, /* bfloat16 */
    LAMINA_INT8 = 5,
    LAMINA_UINT8 = 6,
    LAMINA_INT16 = 7,
    LAMINA_UINT16 = 8,
    LAMINA_INT32 = 9,
    LAMINA_UINT32 = 10,
    LAMINA_INT64 = 11,
    LAMINA_UINT64 = 12,
    LAMINA_BOOL = 13     /* one byte, 0 or 1 */
} lamina_dtype;

/* What a model's input or output is. */
typedef struct lamina_tensor_info {
    const char *name;
    lamina_dtype dtype;
    int32_t rank;
    const int64_t *shape;     /* -1 for a symbolic dimension */
    const char *const *dims;  /* each dimension as text: "3", "batch", "seq + 1" */
} lamina_tensor_info;

/* An array: an input the caller gives, or an output a run produced. */
typedef struct lamina_tensor {
    const char *name;     /* inputs: the input's name, or NULL for "by position" */
    lamina_dtype dtype;
    int32_t rank;
    const int64_t *shape;
    void *data;           /* C order, contiguous */
} lamina_tensor;

typedef struct lamina_session lamina_session;

/* A compiled model: what it takes and gives, and its functions. */
typedef struct lamina_model {
    uint32_t api_version;        /* LAMINA_API_VERSION it was built for */
    const char *name;            /* its symbol prefix */
    const char *target;          /* the target it was compiled for */
    const char *lamina_version;  /* the lamina that compiled it */
    int32_t num_inputs;
    int32_t num_outputs;
    const lamina_tensor_info *inputs;
    const lamina_tensor_info *outputs;
    lamina_status (*session_create)(const struct lamina_model *model, lamina_session **out);
    void (*session_destroy)(lamina_session *session);
    lamina_status (*run)(lamina_session *session, const lamina_tensor *inputs, int32_t count);
    const lamina_tensor *(*output)(const lamina_session *session, int32_t index);
    const char *(*error)(const lamina_session *session);
    /* The team size of the model's parallel loops (its library's thread pool). */
    void (*set_num_threads)(int32_t threads);
} lamina_model;

typedef const lamina_model *(*lamina_get_model_fn)(void);

/* ---- image decoding (ONNX ImageDecoder) -------------------------------------
 *
 * A model with an ImageDecoder calls a decoder when it runs: it reads the
 * image in data[0..size), writes its {height, width, channels} to shape and,
 * unless capacity is 0 (a header-only call; out may then be NULL), its pixels
 * (uint8, height x width x channels, C order) to out, which holds capacity
 * bytes. pixel_format is LAMINA_PIXEL_RGB, _BGR or _GRAYSCALE (channels 3, 3,
 * 1). It returns 0 or a LAMINA_IMAGE_* code; the run then stops with
 * LAMINA_ERROR_MODEL and lamina_session_error says what the code means. The
 * C runtime has no decoder of its own: register one (stb_image, libpng,
 * libjpeg, ...) before running such a model, for each library:
 *
 *     NAME_set_image_decoder(my_decoder);        (or, for dlopen, the
 *     lamina_set_image_decoder symbol, the same function)
 *
 * Without one, every image is LAMINA_IMAGE_NO_DECODER. */
typedef int64_t (*lamina_image_decoder)(const uint8_t *data, int64_t size, int32_t pixel_format,
                                        uint8_t *out, int64_t capacity, int64_t *shape);
typedef void (*lamina_set_image_decoder_fn)(lamina_image_decoder decoder);

#define LAMINA_PIXEL_RGB 0
#define LAMINA_PIXEL_BGR 1
#define LAMINA_PIXEL_GRAYSCALE 2
#define LAMINA_IMAGE_UNKNOWN_FORMAT 1 /* not a known image format */
#define LAMINA_IMAGE_CORRUPT 2        /* corrupt or truncated data */
#define LAMINA_IMAGE_RESHAPED 3       /* another shape than the header call gave */
#define LAMINA_IMAGE_NO_DECODER 4     /* none registered */
#define LAMINA_IMAGE_FAILED 5         /* anything else */

/* ---- helpers (header-only, so the API has no library of its own) ---------- */

static inline lamina_status lamina_model_check(const lamina_model *model) {
    if (model == NULL) return LAMINA_ERROR_ARGUMENT;
    return model->api_version == LAMINA_API_VERSION ? LAMINA_OK : LAMINA_ERROR_VERSION;
}

static inline lamina_status lamina_session_create(const lamina_model *model, lamina_session **out) {
    lamina_status st = lamina_model_check(model);
    if (st != LAMINA_OK) return st;
    if (out == NULL) return LAMINA_ERROR_ARGUMENT;
    return model->session_create(model, out);
}

/* Sessions start with the model's pointer, so the helpers find its functions. */
static inline const lamina_model *lamina_session_model(const lamina_session *session) {
    return session == NULL ? NULL : *(const lamina_model *const *)session;
}

static inline void lamina_session_destroy(lamina_session *session) {
    if (session != NULL) lamina_session_model(session)->session_destroy(session);
}

static inline lamina_status lamina_run(lamina_session *session, const lamina_tensor *inputs, int32_t count) {
    if (session == NULL) return LAMINA_ERROR_ARGUMENT;
    return lamina_session_model(session)->run(session, inputs, count);
}

/* Output `index` of the last successful run (NULL before one, or out of range). */
static inline const lamina_tensor *lamina_session_output(const lamina_session *session, int32_t index) {
    return session == NULL ? NULL : lamina_session_model(session)->output(session, index);
}

/* What went wrong in the session's last call ("" after a success). */
static inline const char *lamina_session_error(const lamina_session *session) {
    return session == NULL ? "no session" : lamina_session_model(session)->error(session);
}

static inline int32_t lamina_find(const lamina_tensor_info *infos, int32_t count, const char *name) {
    for (int32_t i = 0; i < count; i++) {
        const char *a = infos[i].name, *b = name;
        while (*a && *a == *b) a++, b++;
        if (*a == *b) return i;
    }
    return -1;
}

/* The index of the input or output called `name`, or -1. */
static inline int32_t lamina_input_index(const lamina_model *model, const char *name) {
    return lamina_find(model->inputs, model->num_inputs, name);
}

static inline int32_t lamina_output_index(const lamina_model *model, const char *name) {
    return lamina_find(model->outputs, model->num_outputs, name);
}

static inline size_t lamina_dtype_size(lamina_dtype dtype) {
    switch (dtype) {
    case LAMINA_FLOAT64: case LAMINA_INT64: case LAMINA_UINT64: return 8;
    case LAMINA_FLOAT32: case LAMINA_INT32: case LAMINA_UINT32: return 4;
    case LAMINA_FLOAT16: case LAMINA_BFLOAT16: case LAMINA_INT16: case LAMINA_UINT16: return 2;
    case LAMINA_INT8: case LAMINA_UINT8: case LAMINA_BOOL: return 1;
    }
    return 0;
}

/* Elements of a tensor of `rank` dimensions `shape`. */
static inline int64_t lamina_numel(int32_t rank, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t i = 0; i < rank; i++) n *= shape[i];
    return n;
}

static inline const char *lamina_status_string(lamina_status status) {
    switch (status) {
    case LAMINA_OK: return "ok";
    case LAMINA_ERROR_ARGUMENT: return "invalid argument";
    case LAMINA_ERROR_SHAPE: return "wrong shape";
    case LAMINA_ERROR_DTYPE: return "wrong element type";
    case LAMINA_ERROR_MEMORY: return "out of memory";
    case LAMINA_ERROR_MODEL: return "the model stopped on its data";
    case LAMINA_ERROR_VERSION: return "built for another lamina API version";
    }
    return "unknown status";
}

#ifdef __cplusplus
}
#endif

#endif /* LAMINA_H */
