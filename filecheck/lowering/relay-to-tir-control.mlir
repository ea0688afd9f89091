// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s

// Control flow in @main: relay.if becomes tir.if on the loaded condition, each
// branch writing the result buffer; relay.loop a serial tir.for to the trip
// count whose body runs while the condition buffer holds, stacks the scan
// element into its row, copies the carried value back and counts iterations.
// Every buffer is allocated at the top level, the body's before the loop.

// CHECK-LABEL: func.func @main
// CHECK:         %[[C:.*]] = tir.load %0[] : memref<i1>
// CHECK-NEXT:    tir.if %[[C]] {
// CHECK-NEXT:      tir.call @negative(%2, %[[R:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tir.call @copy(%2, %[[R]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    }
// CHECK:         tir.call @copy_1(%0, %[[COND:.*]]) : memref<i1>, memref<i1>
// CHECK-NEXT:    tir.call @copy(%[[R]], %[[ACC:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK:         tir.store %{{.*}}, %[[COUNT:.*]][] : memref<i64>
// CHECK:         %[[N:.*]] = tir.load %1[] : memref<i64>
// CHECK-NEXT:    %[[UB:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK:         tir.for serial %[[I:.*]] = %{{.*}} to %[[UB]] step %{{.*}} {
// CHECK-NEXT:      %[[GO:.*]] = tir.load %[[COND]][] : memref<i1>
// CHECK-NEXT:      tir.if %[[GO]] {
// CHECK-NEXT:        %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:        tir.store %[[I64]], %[[STEP:.*]][] : memref<i64>
// CHECK-NEXT:        tir.call @add(%[[ACC]], %2, %[[U:.*]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
// CHECK-NEXT:        tir.call @stack_row(%[[U]], %[[STEP]], %[[STACK:.*]]) : memref<4xf32>, memref<i64>, memref<3x4xf32>
// CHECK-NEXT:        tir.call @copy(%[[U]], %[[ACC]]) : memref<4xf32>, memref<4xf32>
// CHECK:             tir.store %{{.*}}, %[[COUNT]][] : memref<i64>
// CHECK:         tir.call @copy(%[[ACC]], %3) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    tir.call @copy_2(%[[STACK]], %4) : memref<3x4xf32>, memref<3x4xf32>

// CHECK-LABEL: tir.prim_func @stack_row
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK:         tir.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<3x4xf32>
func.func @main(%c: tensor<i1>, %n: tensor<i64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %r = relay.if %c (%x) then {
  ^bb0(%a: tensor<4xf32>):
    %t = relay.negative %a : tensor<4xf32>
    relay.yield %t : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  %f, %s, %k = relay.loop(%n, %c, %r, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>, %y: tensor<4xf32>):
    %u = relay.add %acc, %y : tensor<4xf32>
    relay.yield %cc, %u, %u : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  } {carried = 1 : i64, max_trips = array<i64: 3>} : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>, tensor<i64>)
  func.return %f, %s : tensor<4xf32>, tensor<3x4xf32>
}
