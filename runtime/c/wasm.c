/* wasm.c: the flat functions a WebAssembly host calls (lamina.mjs, wasmtime).
 *
 * Included at the end of a WebAssembly model's descriptor. A host that calls a
 * module's exports cannot follow the C API's function pointers without the
 * module's function table, so these wrap them, one export each; tensors are
 * laid out as in lamina.h, with 4-byte pointers:
 *
 *     lamina_tensor (20 bytes): name, dtype, rank, shape (int64 *), data
 *
 * A host calls `_initialize` once, reads the metadata (JSON: the inputs' and
 * outputs' names, shapes, dtypes), allocates the inputs' tensors with
 * `lamina_wasm_alloc`, runs them, and reads the outputs' tensors.
 */
LAMINA_EXPORT const char *lamina_wasm_metadata(void) {
    extern const char lamina_metadata[];
    return lamina_metadata;
}

LAMINA_EXPORT void *lamina_wasm_alloc(size_t bytes) {
    void *p = NULL;
    return posix_memalign(&p, BUFFER_ALIGN, bytes ? bytes : 1) == 0 ? p : NULL;
}

LAMINA_EXPORT void lamina_wasm_free(void *p) { free(p); }

/* A new session of the module's model (NULL: out of memory). */
LAMINA_EXPORT lamina_session *lamina_wasm_session(void) {
    lamina_session *s = NULL;
    return session_create(&MODEL, &s) == LAMINA_OK ? s : NULL;
}

LAMINA_EXPORT int32_t lamina_wasm_run(lamina_session *s, const lamina_tensor *inputs, int32_t count) {
    return s == NULL ? LAMINA_ERROR_ARGUMENT : (int32_t)run(s, inputs, count);
}

LAMINA_EXPORT const lamina_tensor *lamina_wasm_output(lamina_session *s, int32_t index) {
    return s == NULL ? NULL : session_output(s, index);
}

LAMINA_EXPORT const char *lamina_wasm_error(lamina_session *s) {
    return s == NULL ? "no session" : session_error(s);
}
