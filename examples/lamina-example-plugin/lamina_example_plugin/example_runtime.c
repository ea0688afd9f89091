/* The "vendor library" of the example target: what a real backend would ship. */
void example_relu(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
}
void example_add(const float *a, const float *b, float *y, long n) {
    for (long i = 0; i < n; i++) y[i] = a[i] + b[i];
}
void example_add_relu(const float *a, const float *b, float *y, long n) {
    for (long i = 0; i < n; i++) { float s = a[i] + b[i]; y[i] = s > 0 ? s : 0; }
}
