/* session.c: the C runtime of one compiled model (lamina.h's functions).
 *
 * Not compiled on its own: the model's descriptor, which lamina generates at
 * export (`lamina.codegen.descriptor`), defines the tables and functions below
 * and then includes this file, so every library carries its own copy, with
 * internal linkage. What it does per run is what the Python runtime
 * (`lamina.runtime.model.CompiledModel.run`) does:
 *
 * - inputs matched by name or position, checked (dtype, rank, shape; symbolic
 *   sizes bound from them, and the model's assumptions checked), and copied
 *   into the session's aligned buffers (the native ABI: `BUFFER_ALIGN`-aligned,
 *   `BUFFER_SLACK` readable bytes after each);
 * - data-dependent sizes planned at their bound, or at a capacity that grows
 *   when the model stops to ask for more (`REPLAN_EXIT`);
 * - the workspace planned per shape for a symbolic model (greedy first fit over
 *   live ranges, as `lamina.runtime.workspace.plan_workspace`);
 * - `main(args, params, workspace)` called, and its exit status read.
 *
 * The descriptor defines: NUM_INPUTS, NUM_OUTPUTS, NUM_SIZES, NUM_RANGES,
 * NUM_EXITS, REPLAN_EXIT, WORKSPACE_SIZE, INPUTS, OUTPUTS, EXITS, SIZE_KIND,
 * RANGE_FIRST, RANGE_LAST, PARAMS, NUM_NAMES (the sizes, then other names
 * shapes mention), LAMINA_ENTRY, LAMINA_IMAGE_DECODER (1 when the model's code
 * calls the image decoder) and the functions
 * bind_sizes, plan_sizes, replan_sizes, output_shape and range_bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_ALIGN 64
#define BUFFER_SLACK 256
/* Size kinds (SIZE_KIND): bound from an input's shape, set by the model with an
 * upper bound, set by the model without one. */
#define SIZE_INPUT 0
#define SIZE_BOUNDED 1
#define SIZE_UNBOUNDED 2
/* Stops to plan again a run may make before giving up. */
#define MAX_REPLANS (64 * (NUM_SIZES + 1) + 2)
#define SLOTS (NUM_INPUTS + NUM_OUTPUTS + NUM_SIZES + NUM_RANGES + (NUM_EXITS > 0))
#define AT_LEAST_1(n) ((n) > 0 ? (n) : 1)

extern void LAMINA_ENTRY(void **args, void **params, char *workspace);
extern void lamina_set_num_threads(int32_t threads);

#if LAMINA_IMAGE_DECODER
/* The image decoder the model's code calls (lamina.h, lamina.abi.IMAGE_DECODE),
 * when it has an ImageDecoder: the one registered with NAME_set_image_decoder,
 * else none. */
static lamina_image_decoder image_decoder;

int64_t lamina_image_decode(const uint8_t *data, int64_t size, int32_t pixel_format,
                            uint8_t *out, int64_t capacity, int64_t *shape) {
    lamina_image_decoder decode = image_decoder;
    if (decode == NULL) return LAMINA_IMAGE_NO_DECODER;
    return decode(data, size, pixel_format, out, capacity, shape);
}

static void set_image_decoder(lamina_image_decoder decoder) { image_decoder = decoder; }
#endif

typedef struct buffer {
    void *data;
    size_t capacity;
} buffer;

struct lamina_session {
    const lamina_model *model; /* first, for lamina.h's helpers */
    int ran;
    buffer inputs[AT_LEAST_1(NUM_INPUTS)];
    buffer outputs[AT_LEAST_1(NUM_OUTPUTS)];
    buffer workspace;
    int64_t capacity[AT_LEAST_1(NUM_SIZES)];
    int64_t out_shapes[AT_LEAST_1(NUM_OUTPUTS)][8];
    int64_t *out_shape_heap[AT_LEAST_1(NUM_OUTPUTS)];
    lamina_tensor results[AT_LEAST_1(NUM_OUTPUTS)];
    char error[512];
};

static lamina_status fail(lamina_session *s, lamina_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    return st;
}

/* `b` holding at least `bytes` (and the slack), aligned; its old contents go. */
static int reserve(buffer *b, size_t bytes) {
    bytes += BUFFER_SLACK;
    if (b->data != NULL && b->capacity >= bytes) return 1;
    free(b->data);
    b->data = NULL;
    b->capacity = 0;
    void *p = NULL;
    if (posix_memalign(&p, BUFFER_ALIGN, (bytes + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN))
        return 0;
    memset(p, 0, bytes); /* the slack is read by vector tails: keep it defined */
    b->data = p;
    b->capacity = bytes;
    return 1;
}

__attribute__((unused)) static int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__attribute__((unused)) static int64_t align_up(int64_t n) { return (n + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN; }

#if NUM_RANGES > 0
/* Offsets of the live ranges' buffers: in order of first use, each at the
 * lowest aligned offset that overlaps no buffer still live (greedy first fit). */
static int64_t plan_workspace(const int64_t *bytes, int64_t *offsets) {
    int order[NUM_RANGES];
    for (int i = 0; i < NUM_RANGES; i++) order[i] = i;
    for (int i = 1; i < NUM_RANGES; i++) { /* stable: by first use, then index */
        int v = order[i], j = i;
        while (j > 0 && RANGE_FIRST[order[j - 1]] > RANGE_FIRST[v]) order[j] = order[j - 1], j--;
        order[j] = v;
    }
    int live[NUM_RANGES], nlive = 0;
    int64_t size = 0;
    for (int k = 0; k < NUM_RANGES; k++) {
        int i = order[k];
        int64_t need = align_up(bytes[i]), offset = 0;
        int kept = 0;
        for (int j = 0; j < nlive; j++)
            if (RANGE_LAST[live[j]] >= RANGE_FIRST[i]) live[kept++] = live[j];
        nlive = kept;
        for (int a = 1; a < nlive; a++) { /* the live buffers by offset */
            int v = live[a], b = a;
            while (b > 0 && offsets[live[b - 1]] > offsets[v]) live[b] = live[b - 1], b--;
            live[b] = v;
        }
        for (int j = 0; j < nlive; j++) {
            int64_t o = offsets[live[j]];
            if (o - offset >= need) break;
            int64_t end = o + align_up(bytes[live[j]]);
            if (end > offset) offset = end;
        }
        offsets[i] = offset;
        live[nlive++] = i;
        if (offset + need > size) size = offset + need;
    }
    return size;
}
#endif

static lamina_status session_create(const lamina_model *model, lamina_session **out) {
    lamina_session *s = (lamina_session *)calloc(1, sizeof *s);
    if (s == NULL) return LAMINA_ERROR_MEMORY;
    s->model = model;
    for (int k = 0; k < NUM_SIZES; k++) s->capacity[k] = 1;
    *out = s;
    return LAMINA_OK;
}

static void session_destroy(lamina_session *s) {
    for (int i = 0; i < NUM_INPUTS; i++) free(s->inputs[i].data);
    for (int i = 0; i < NUM_OUTPUTS; i++) free(s->outputs[i].data), free(s->out_shape_heap[i]);
    free(s->workspace.data);
    free(s);
}

static const char *session_error(const lamina_session *s) { return s->error; }

static const lamina_tensor *session_output(const lamina_session *s, int32_t index) {
    if (!s->ran || index < 0 || index >= NUM_OUTPUTS) return NULL;
    return &s->results[index];
}

static int same_name(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* The caller's tensor for each input, by name or position. */
static lamina_status match_inputs(lamina_session *s, const lamina_tensor *given, int32_t count,
                                  const lamina_tensor **by_input) {
    for (int i = 0; i < NUM_INPUTS; i++) by_input[i] = NULL;
    if (count < 0 || (count > 0 && given == NULL))
        return fail(s, LAMINA_ERROR_ARGUMENT, "%d inputs given at NULL", (int)count);
    for (int32_t k = 0; k < count; k++) {
        int i = -1;
        if (given[k].name == NULL) {
            i = k;
            if (i >= NUM_INPUTS)
                return fail(s, LAMINA_ERROR_ARGUMENT, "the model takes %d input(s), got %d",
                            NUM_INPUTS, (int)count);
        } else {
            for (int j = 0; j < NUM_INPUTS; j++)
                if (same_name(INPUTS[j].name, given[k].name)) i = j;
            if (i < 0)
                return fail(s, LAMINA_ERROR_ARGUMENT, "unknown input '%s'", given[k].name);
        }
        if (by_input[i] != NULL)
            return fail(s, LAMINA_ERROR_ARGUMENT, "input '%s' given twice", INPUTS[i].name);
        by_input[i] = &given[k];
    }
    for (int i = 0; i < NUM_INPUTS; i++) {
        const lamina_tensor *t = by_input[i];
        if (t == NULL) return fail(s, LAMINA_ERROR_ARGUMENT, "missing input '%s'", INPUTS[i].name);
        if (t->dtype != INPUTS[i].dtype)
            return fail(s, LAMINA_ERROR_DTYPE, "input '%s': expected element type %d, got %d",
                        INPUTS[i].name, (int)INPUTS[i].dtype, (int)t->dtype);
        if (t->rank != INPUTS[i].rank)
            return fail(s, LAMINA_ERROR_SHAPE, "input '%s': expected %d dimension(s), got %d",
                        INPUTS[i].name, (int)INPUTS[i].rank, (int)t->rank);
        if (t->rank > 0 && t->shape == NULL)
            return fail(s, LAMINA_ERROR_ARGUMENT, "input '%s' has no shape", INPUTS[i].name);
        if (t->data == NULL && lamina_numel(t->rank, t->shape) > 0)
            return fail(s, LAMINA_ERROR_ARGUMENT, "input '%s' has no data", INPUTS[i].name);
        for (int a = 0; a < t->rank; a++) {
            int64_t want = INPUTS[i].shape[a];
            if (want >= 0 && t->shape[a] != want)
                return fail(s, LAMINA_ERROR_SHAPE, "input '%s': axis %d is %lld, the model takes %lld",
                            INPUTS[i].name, a, (long long)t->shape[a], (long long)want);
        }
    }
    return LAMINA_OK;
}

static size_t nbytes(const lamina_tensor_info *info, const int64_t *shape) {
    return (size_t)lamina_numel(info->rank, shape) * lamina_dtype_size(info->dtype);
}

/* Outputs, workspace and the `args` table for sizes `env`. */
static lamina_status prepare(lamina_session *s, const int64_t *env, uint64_t *args) {
    for (int i = 0; i < NUM_OUTPUTS; i++) {
        int64_t shape[64];
        if (OUTPUTS[i].rank > 64) return fail(s, LAMINA_ERROR_SHAPE, "output rank over 64");
        output_shape(i, env, shape);
        if (!reserve(&s->outputs[i], nbytes(&OUTPUTS[i], shape)))
            return fail(s, LAMINA_ERROR_MEMORY, "no memory for output '%s'", OUTPUTS[i].name);
        args[NUM_INPUTS + i] = (uint64_t)(uintptr_t)s->outputs[i].data;
    }
    int64_t workspace = WORKSPACE_SIZE;
    int slot = NUM_INPUTS + NUM_OUTPUTS;
    for (int k = 0; k < NUM_SIZES; k++) args[slot++] = (uint64_t)env[k];
#if NUM_RANGES > 0
    int64_t bytes[NUM_RANGES], offsets[NUM_RANGES];
    range_bytes(env, bytes);
    workspace = plan_workspace(bytes, offsets);
    for (int k = 0; k < NUM_RANGES; k++) args[slot++] = (uint64_t)offsets[k];
#endif
    if (NUM_EXITS > 0) args[slot] = 0;
    if (!reserve(&s->workspace, (size_t)(workspace > 0 ? workspace : 1)))
        return fail(s, LAMINA_ERROR_MEMORY, "no memory for a workspace of %lld bytes",
                    (long long)workspace);
    return LAMINA_OK;
}

static lamina_status run(lamina_session *s, const lamina_tensor *given, int32_t count) {
    const lamina_tensor *by_input[AT_LEAST_1(NUM_INPUTS)];
    uint64_t args[AT_LEAST_1(SLOTS)]; /* 8-byte slots on every target (lamina.abi) */
    int64_t env[NUM_NAMES] = {0};
    const int64_t *shapes[AT_LEAST_1(NUM_INPUTS)];
    s->error[0] = '\0';
    s->ran = 0;
    lamina_status st = match_inputs(s, given, count, by_input);
    if (st != LAMINA_OK) return st;
    for (int i = 0; i < NUM_INPUTS; i++) shapes[i] = by_input[i]->shape;
    if (!bind_sizes(env, shapes, s->error, sizeof s->error)) return LAMINA_ERROR_SHAPE;
    for (int i = 0; i < NUM_INPUTS; i++) {
        size_t n = nbytes(&INPUTS[i], shapes[i]);
        if (!reserve(&s->inputs[i], n))
            return fail(s, LAMINA_ERROR_MEMORY, "no memory for input '%s'", INPUTS[i].name);
        if (n) memcpy(s->inputs[i].data, by_input[i]->data, n);
        args[i] = (uint64_t)(uintptr_t)s->inputs[i].data;
    }
    plan_sizes(env, s->capacity);
    int stops = 0;
    for (;;) {
        st = prepare(s, env, args);
        if (st != LAMINA_OK) return st;
        LAMINA_ENTRY((void **)args, (void **)PARAMS, (char *)s->workspace.data);
        int64_t status = NUM_EXITS > 0 ? (int64_t)args[SLOTS - 1] : 0;
        if (status == 0) break;
        if (status < 0 || status > NUM_EXITS)
            return fail(s, LAMINA_ERROR_MODEL, "the model stopped with status %lld", (long long)status);
        if (status != REPLAN_EXIT)
            return fail(s, LAMINA_ERROR_MODEL, "the model stopped: %s", EXITS[status - 1]);
        if (++stops > MAX_REPLANS)
            return fail(s, LAMINA_ERROR_MEMORY, "the model kept asking for more memory than planned");
        replan_sizes(env, &args[NUM_INPUTS + NUM_OUTPUTS]);
    }
    /* The sizes the model set: capacities for the next run, and the outputs' shapes. */
    for (int k = 0; k < NUM_SIZES; k++) {
        if (SIZE_KIND[k] == SIZE_INPUT) continue;
        int64_t value = (int64_t)args[NUM_INPUTS + NUM_OUTPUTS + k];
        if (SIZE_KIND[k] == SIZE_UNBOUNDED) {
            int64_t cap = s->capacity[k];
            if (value > cap) cap = value;
            if (env[k] > cap) cap = env[k];
            s->capacity[k] = cap;
        }
        env[k] = value;
    }
    for (int i = 0; i < NUM_OUTPUTS; i++) {
        int64_t *shape = s->out_shapes[i];
        if (OUTPUTS[i].rank > 8) {
            free(s->out_shape_heap[i]);
            s->out_shape_heap[i] = (int64_t *)malloc(sizeof(int64_t) * (size_t)OUTPUTS[i].rank);
            if (s->out_shape_heap[i] == NULL) return fail(s, LAMINA_ERROR_MEMORY, "no memory");
            shape = s->out_shape_heap[i];
        }
        output_shape(i, env, shape);
        lamina_tensor *r = &s->results[i];
        r->name = OUTPUTS[i].name;
        r->dtype = OUTPUTS[i].dtype;
        r->rank = OUTPUTS[i].rank;
        r->shape = shape;
        r->data = s->outputs[i].data;
    }
    s->ran = 1;
    return LAMINA_OK;
}

static void set_num_threads(int32_t threads) { lamina_set_num_threads(threads > 0 ? threads : 1); }
