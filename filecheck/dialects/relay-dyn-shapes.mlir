// Shapes given as data: relay.dyn_reshape and relay.dyn_broadcast_to name the
// sizes their i64 shape operand sets ("" for an element not read), and their
// result's dims; relay.dyn_arange's count sets a size; relay.check passes its
// data on once a boolean scalar holds. te.set_size and tir.set_size without a
// bound set an unbounded size, from element [index] of a 1-D count; te.check
// and tir.check stop the run with a message. Custom and generic forms.
// RUN: %lamina_roundtrip | filecheck %s
// RUN: lamina-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @reshape(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32, ["r0", "r1"]> {
// CHECK-NEXT:    %0 = relay.dyn_reshape %x, %s {sizes = ["r0", "r1"], dims = ["r0", "r1"]} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32, ["r0", "r1"]>
// CHECK-NEXT:    func.return %0 : tensor<?x?xf32, ["r0", "r1"]>
// CHECK-NEXT:  }
// GENERIC: "relay.dyn_reshape"(%x, %s) <{sizes = ["r0", "r1"], dims = ["r0", "r1"]}> : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32, ["r0", "r1"]>
func.func @reshape(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32, ["r0", "r1"]> {
  %0 = relay.dyn_reshape %x, %s {sizes = ["r0", "r1"], dims = ["r0", "r1"]} : (tensor<2x3xf32>, tensor<2xi64>)
  func.return %0 : tensor<?x?xf32, ["r0", "r1"]>
}

// -----

// A symbolic input reshaped to a scalar (no element read).
// CHECK-LABEL: func.func @reshape_scalar(%x: tensor<?xf32, ["n"]>, %s: tensor<0xi64>) -> tensor<f32> {
// CHECK-NEXT:    %0 = relay.dyn_reshape %x, %s {sizes = [], dims = []} : (tensor<?xf32, ["n"]>, tensor<0xi64>) -> tensor<f32>
func.func @reshape_scalar(%x: tensor<?xf32, ["n"]>, %s: tensor<0xi64>) -> tensor<f32> {
  %0 = relay.dyn_reshape %x, %s {sizes = [], dims = []} : (tensor<?xf32, ["n"]>, tensor<0xi64>)
  func.return %0 : tensor<f32>
}

// -----

// Known dims (x's 3, a symbolic input size) beside sizes set by the data.
// CHECK-LABEL: func.func @broadcast(%x: tensor<3x1xi64>, %s: tensor<3xi64>, %y: tensor<?x1xf32, ["n"]>, %t: tensor<2xi64>) -> (tensor<?x3x?xi64, ["b0", "b2"]>, tensor<?x?xf32, ["n", "w"]>) {
// CHECK-NEXT:    %0 = relay.dyn_broadcast_to %x, %s {sizes = ["b0", "", "b2"], dims = ["b0", 3 : i64, "b2"]} : (tensor<3x1xi64>, tensor<3xi64>) -> tensor<?x3x?xi64, ["b0", "b2"]>
// CHECK-NEXT:    %1 = relay.dyn_broadcast_to %y, %t {sizes = ["", "w"], dims = ["n", "w"]} : (tensor<?x1xf32, ["n"]>, tensor<2xi64>) -> tensor<?x?xf32, ["n", "w"]>
// CHECK-NEXT:    func.return %0, %1
// GENERIC: "relay.dyn_broadcast_to"(%x, %s) <{sizes = ["b0", "", "b2"], dims = ["b0", 3 : i64, "b2"]}> : (tensor<3x1xi64>, tensor<3xi64>) -> tensor<?x3x?xi64, ["b0", "b2"]>
func.func @broadcast(%x: tensor<3x1xi64>, %s: tensor<3xi64>, %y: tensor<?x1xf32, ["n"]>, %t: tensor<2xi64>) -> (tensor<?x3x?xi64, ["b0", "b2"]>, tensor<?x?xf32, ["n", "w"]>) {
  %0 = relay.dyn_broadcast_to %x, %s {sizes = ["b0", "", "b2"], dims = ["b0", 3, "b2"]} : (tensor<3x1xi64>, tensor<3xi64>)
  %1 = relay.dyn_broadcast_to %y, %t {sizes = ["", "w"], dims = ["n", "w"]} : (tensor<?x1xf32, ["n"]>, tensor<2xi64>)
  func.return %0, %1 : tensor<?x3x?xi64, ["b0", "b2"]>, tensor<?x?xf32, ["n", "w"]>
}

// -----

// CHECK-LABEL: func.func @arange_check(%n: tensor<i64>, %ok: tensor<i1>) -> tensor<?xi64, ["k"]> {
// CHECK-NEXT:    %0 = relay.check %n, %ok {message = "Range: delta is 0"} : (tensor<i64>, tensor<i1>) -> tensor<i64>
// CHECK-NEXT:    %1 = relay.dyn_arange %0 {size = "k"} : (tensor<i64>) -> tensor<?xi64, ["k"]>
// CHECK-NEXT:    func.return %1 : tensor<?xi64, ["k"]>
// CHECK-NEXT:  }
// GENERIC:      "relay.check"(%n, %ok) <{message = "Range: delta is 0"}> : (tensor<i64>, tensor<i1>) -> tensor<i64>
// GENERIC-NEXT: "relay.dyn_arange"(%0) <{size = "k"}> : (tensor<i64>) -> tensor<?xi64, ["k"]>
func.func @arange_check(%n: tensor<i64>, %ok: tensor<i1>) -> tensor<?xi64, ["k"]> {
  %0 = relay.check %n, %ok {message = "Range: delta is 0"} : (tensor<i64>, tensor<i1>)
  %1 = relay.dyn_arange %0 {size = "k"} : (tensor<i64>)
  func.return %1 : tensor<?xi64, ["k"]>
}

// -----

// CHECK-LABEL: func.func @te_graph(%s: tensor<3xi64>, %n: tensor<i64>, %ok: tensor<i1>) {
// CHECK-NEXT:    te.set_size "r0" = %s[0] : tensor<3xi64>
// CHECK-NEXT:    te.set_size "r2" = %s[2] : tensor<3xi64>
// CHECK-NEXT:    te.set_size "k" = %n : tensor<i64>
// CHECK-NEXT:    te.set_size "m" = %n, bound "2*r0" : tensor<i64>
// CHECK-NEXT:    te.check %ok, "the shape must keep 6 elements" : tensor<i1>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC:      "te.set_size"(%s) <{size = "r0", index = 0 : i64}> : (tensor<3xi64>) -> ()
// GENERIC:      "te.set_size"(%n) <{size = "k"}> : (tensor<i64>) -> ()
// GENERIC-NEXT: "te.set_size"(%n) <{size = "m", bound = "2*r0"}> : (tensor<i64>) -> ()
// GENERIC-NEXT: "te.check"(%ok) <{message = "the shape must keep 6 elements"}> : (tensor<i1>) -> ()
func.func @te_graph(%s: tensor<3xi64>, %n: tensor<i64>, %ok: tensor<i1>) {
  te.set_size "r0" = %s[0] : tensor<3xi64>
  te.set_size "r2" = %s[2] : tensor<3xi64>
  te.set_size "k" = %n : tensor<i64>
  te.set_size "m" = %n, bound "2*r0" : tensor<i64>
  te.check %ok, "the shape must keep 6 elements" : tensor<i1>
  func.return
}

// -----

// CHECK-LABEL: func.func @tir_main(%s: memref<2xi64>, %n: memref<i64>, %ok: i1) {
// CHECK-NEXT:    tir.set_size "r1" = %s[1] : memref<2xi64>
// CHECK-NEXT:    tir.set_size "k" = %n : memref<i64>
// CHECK-NEXT:    tir.check %ok, "the data set size 'k' to a negative value"
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC:      "tir.set_size"(%s) <{size = "r1", index = 1 : i64}> : (memref<2xi64>) -> ()
// GENERIC-NEXT: "tir.set_size"(%n) <{size = "k"}> : (memref<i64>) -> ()
// GENERIC-NEXT: "tir.check"(%ok) <{message = "the data set size 'k' to a negative value"}> : (i1) -> ()
func.func @tir_main(%s: memref<2xi64>, %n: memref<i64>, %ok: i1) {
  tir.set_size "r1" = %s[1] : memref<2xi64>
  tir.set_size "k" = %n : memref<i64>
  tir.check %ok, "the data set size 'k' to a negative value"
  func.return
}
