// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s

// A relay.loop's states at the end of an iteration. A next state whose
// producer, and every op after it, leaves the current state unread is computed
// in its state buffer (%s <- -s * p: the multiply writes S, no copy). The
// others are copied in as one parallel assignment: a state that becomes
// another's (q <- p, while p <- p + q) is copied aside before p is overwritten.

// CHECK-LABEL: func.func @main
// CHECK:         tir.call @copy_1(%2, %[[P:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    tir.call @copy_1(%3, %[[Q:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    tir.call @copy_1(%4, %[[S:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK:         tir.for serial
// CHECK:           tir.call @add(%[[P]], %[[Q]], %[[SUM:.*]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      tir.call @negative(%[[S]], %[[NEG:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      tir.call @multiply(%[[NEG]], %[[P]], %[[S]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      tir.call @copy_1(%[[P]], %[[ASIDE:.*]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      tir.call @copy_1(%[[SUM]], %[[P]]) : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      tir.call @copy_1(%[[ASIDE]], %[[Q]]) : memref<4xf32>, memref<4xf32>
// CHECK-NOT:       tir.call
// CHECK:         }
// CHECK-NEXT:  }
// CHECK-NEXT:    tir.call @copy_1(%[[P]], %5)
// CHECK-NEXT:    tir.call @copy_1(%[[Q]], %6)
// CHECK-NEXT:    tir.call @copy_1(%[[S]], %7)
func.func @main(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a, %b, %e, %k = relay.loop(%n, %c, %x, %y, %z) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %p: tensor<4xf32>, %q: tensor<4xf32>, %s: tensor<4xf32>):
    %sum = relay.add %p, %q : tensor<4xf32>
    %neg = relay.negative %s : tensor<4xf32>
    %next = relay.multiply %neg, %p : tensor<4xf32>
    relay.yield %cc, %sum, %p, %next : tensor<i1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  } {carried = 3 : i64} : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  func.return %a, %b, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
