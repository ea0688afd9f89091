// Invalid symbolic buffers and sizes, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// CHECK: tir.prim_func @unnamed: a buffer has a dynamic shape without named sizes (a #tir.sizes layout)
tir.prim_func @unnamed(%x: memref<?xf32>) {
  tir.return
}

// -----

// CHECK: tir.prim_func @no_size_arg: its buffers depend on size(s) ['n'], which its `sizes` attribute does not name
tir.prim_func @no_size_arg(%x: memref<?xf32, #tir.sizes<["n"]>>) {
  tir.return
}

// -----

// CHECK: tir.prim_func @size_not_index: argument #1 has type f32, but kernel arguments must be memrefs, then one index per name in its sizes ['n']
tir.prim_func @size_not_index(%x: memref<?xf32, #tir.sizes<["n"]>>, %n: f32) attributes {sizes = ["n"]} {
  tir.return
}

// -----

func.func @bad_size() {
  // CHECK: tir.size: '2n' is not a size name
  %n = tir.size "2n" : index
  func.return
}
