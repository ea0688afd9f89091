// Round trip of the relay ops with extern kernels (scatters, top-k, cumulative):
// custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @algorithm(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %e: tensor<2x3xi32>, %n: tensor<4x6xi32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<4x6xi32>, tensor<5x3xf32>) {
// CHECK-NEXT:    %0 = relay.scatter_nd %x, %i, %u : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %1 = relay.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %2 = relay.scatter_elements %x, %e, %u {axis = 0 : i64, reduction = "add"} : (tensor<5x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %3, %4 = relay.topk %x {k = 2 : i64, axis = 0 : i64, largest} : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK-NEXT:    %5 = relay.cumulative %n {axis = 1 : i64, kind = "prod", exclusive, reverse} : tensor<4x6xi32>
// CHECK-NEXT:    %6 = relay.cumulative %x {axis = 0 : i64, kind = "sum"} : tensor<5x3xf32>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4, %5, %6 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<4x6xi32>, tensor<5x3xf32>
// CHECK-NEXT:    }
// GENERIC:       %0 = "relay.scatter_nd"(%x, %i, %u) : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
// GENERIC-NEXT:  %1 = "relay.scatter_nd"(%x, %i, %u) <{reduction = "max"}> : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
// GENERIC-NEXT:  %2 = "relay.scatter_elements"(%x, %e, %u) <{axis = 0 : i64, reduction = "add"}> : (tensor<5x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
// GENERIC-NEXT:  %3, %4 = "relay.topk"(%x) <{k = 2 : i64, axis = 0 : i64, largest}> : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// GENERIC-NEXT:  %5 = "relay.cumulative"(%n) <{axis = 1 : i64, kind = "prod", exclusive, reverse}> : (tensor<4x6xi32>) -> tensor<4x6xi32>
// GENERIC-NEXT:  %6 = "relay.cumulative"(%x) <{axis = 0 : i64, kind = "sum"}> : (tensor<5x3xf32>) -> tensor<5x3xf32>

func.func @algorithm(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %e: tensor<2x3xi32>, %n: tensor<4x6xi32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<4x6xi32>, tensor<5x3xf32>) {
  %0 = relay.scatter_nd %x, %i, %u : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>)
  %1 = relay.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>)
  %2 = relay.scatter_elements %x, %e, %u {axis = 0 : i64, reduction = "add"} : (tensor<5x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>)
  %3, %4 = relay.topk %x {k = 2 : i64, axis = 0 : i64, largest} : (tensor<5x3xf32>)
  %5 = relay.cumulative %n {axis = 1 : i64, kind = "prod", exclusive, reverse} : (tensor<4x6xi32>)
  %6 = relay.cumulative %x {axis = 0 : i64, kind = "sum"} : (tensor<5x3xf32>)
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<4x6xi32>, tensor<5x3xf32>
}
