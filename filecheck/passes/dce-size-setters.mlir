// dce: an op that sets a size when it runs (relay.dyn_broadcast_to,
// relay.dyn_reshape, relay.dyn_arange, relay.narrow) is kept when its result is
// unused, since other ops may use the size it sets ("n" in the relay.arange
// below); an unused pure op goes.
// RUN: lamina-opt %s --split-input-file -p dce | filecheck %s

// CHECK-LABEL: func.func @size_used(%x: tensor<1x3xf32>, %s: tensor<2xi64>) -> tensor<?xi64, ["n"]> {
// CHECK-NEXT:    %0 = relay.dyn_broadcast_to %x, %s {sizes = ["n", ""], dims = ["n", 3 : i64]}
// CHECK-NEXT:    %1 = relay.arange {size = ["n"], start = 0 : i64, step = 1 : i64}
// CHECK-NEXT:    func.return %1
func.func @size_used(%x: tensor<1x3xf32>, %s: tensor<2xi64>) -> tensor<?xi64, ["n"]> {
  %0 = relay.dyn_broadcast_to %x, %s {sizes = ["n", ""], dims = ["n", 3]} : (tensor<1x3xf32>, tensor<2xi64>)
  %dead = relay.add %x, %x : tensor<1x3xf32>
  %1 = relay.arange {size = ["n"], start = 0 : i64, step = 1 : i64} : () -> tensor<?xi64, ["n"]>
  func.return %1 : tensor<?xi64, ["n"]>
}

// -----

// CHECK-LABEL: func.func @count_used(%c: tensor<i64>, %t: tensor<3xi64>) -> tensor<?xi64, ["m"]> {
// CHECK-NEXT:    %0 = relay.dyn_arange %c {size = "m"}
// CHECK-NEXT:    %1 = relay.dyn_reshape %t, %t {sizes = ["r0", "r1", "r2"], dims = ["r0", "r1", "r2"]}
// CHECK-NEXT:    %2 = relay.arange {size = ["m"], start = 0 : i64, step = 1 : i64}
// CHECK-NEXT:    func.return %2
func.func @count_used(%c: tensor<i64>, %t: tensor<3xi64>) -> tensor<?xi64, ["m"]> {
  %0 = relay.dyn_arange %c {size = "m"} : (tensor<i64>) -> tensor<?xi64, ["m"]>
  %1 = relay.dyn_reshape %t, %t {sizes = ["r0", "r1", "r2"], dims = ["r0", "r1", "r2"]} : (tensor<3xi64>, tensor<3xi64>)
  %2 = relay.arange {size = ["m"], start = 0 : i64, step = 1 : i64} : () -> tensor<?xi64, ["m"]>
  func.return %2 : tensor<?xi64, ["m"]>
}
