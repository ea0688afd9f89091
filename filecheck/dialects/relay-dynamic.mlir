// Data-dependent sizes: producers write a result padded to a bound and a count
// (relay.nonzero, relay.non_max_suppression, relay.unique); relay.narrow names
// the count as a size; te.set_size and tir.set_size set it in @main.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK-LABEL: func.func @nonzero(%x: tensor<2x3xf32>, %y: tensor<?x4xi1, ["n"]>) -> (tensor<2x?xi64, ["nz"]>, tensor<2x?xi64, ["m"]>) {
// CHECK-NEXT:    %0, %1 = relay.nonzero %x : (tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>)
// CHECK-NEXT:    %2 = relay.narrow %0, %1 {axis = 1 : i64, size = "nz"} : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x?xi64, ["nz"]>
// CHECK-NEXT:    %3, %4 = relay.nonzero %y : (tensor<?x4xi1, ["n"]>) -> (tensor<2x?xi64, ["4*n"]>, tensor<i64>)
// CHECK-NEXT:    %5 = relay.narrow %3, %4 {axis = -1 : i64, size = "m"} : (tensor<2x?xi64, ["4*n"]>, tensor<i64>) -> tensor<2x?xi64, ["m"]>
// CHECK-NEXT:    func.return %2, %5 : tensor<2x?xi64, ["nz"]>, tensor<2x?xi64, ["m"]>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @nms(%boxes: tensor<2x5x4xf32>, %scores: tensor<2x3x5xf32>, %k: tensor<1xi64>, %iou: tensor<f32>, %score: tensor<1xf32>) -> tensor<?x3xi64, ["selected"]> {
// CHECK-NEXT:    %0, %1 = relay.non_max_suppression %boxes, %scores, %k, %iou, %score : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<f32>, tensor<1xf32>) -> (tensor<30x3xi64>, tensor<i64>)
// CHECK-NEXT:    %2, %3 = relay.non_max_suppression %boxes, %scores, %k, %iou, %score {center_point_box} : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<f32>, tensor<1xf32>) -> (tensor<30x3xi64>, tensor<i64>)
// CHECK-NEXT:    %4 = relay.narrow %0, %1 {axis = 0 : i64, size = "selected"} : (tensor<30x3xi64>, tensor<i64>) -> tensor<?x3xi64, ["selected"]>
// CHECK-NEXT:    func.return %4 : tensor<?x3xi64, ["selected"]>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @unique(%x: tensor<6x2xf32>, %n: tensor<?x1xi64, ["n"]>) -> (tensor<?x2xf32, ["u"]>, tensor<6xi64>) {
// CHECK-NEXT:    %0, %1, %2, %3, %4 = relay.unique %x {sorted} : (tensor<6x2xf32>) -> (tensor<6x2xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<i64>)
// CHECK-NEXT:    %5, %6, %7, %8, %9 = relay.unique %n : (tensor<?x1xi64, ["n"]>) -> (tensor<?x1xi64, ["n"]>, tensor<?xi64, ["n"]>, tensor<?xi64, ["n"]>, tensor<?xi64, ["n"]>, tensor<i64>)
// CHECK-NEXT:    %10 = relay.narrow %0, %4 {axis = 0 : i64, size = "u"} : (tensor<6x2xf32>, tensor<i64>) -> tensor<?x2xf32, ["u"]>
// CHECK-NEXT:    func.return %10, %2 : tensor<?x2xf32, ["u"]>, tensor<6xi64>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @te_graph(%count: tensor<i64>, %k: tensor<i64>) {
// CHECK-NEXT:    te.set_size "nz" = %count, bound "6" : tensor<i64>
// CHECK-NEXT:    te.set_size "m" = %k, bound "n*2 + 1" : tensor<i64>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @tir_main(%count: memref<i64>) {
// CHECK-NEXT:    tir.set_size "nz" = %count, bound "6" : memref<i64>
// CHECK-NEXT:    tir.set_size "rows" = %count, bound "4*n" : memref<i64>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

func.func @nonzero(%x: tensor<2x3xf32>, %y: tensor<?x4xi1, ["n"]>) -> (tensor<2x?xi64, ["nz"]>, tensor<2x?xi64, ["m"]>) {
  %0, %1 = relay.nonzero %x : (tensor<2x3xf32>)
  %2 = relay.narrow %0, %1 {axis = 1 : i64, size = "nz"} : (tensor<2x6xi64>, tensor<i64>)
  %3, %4 = relay.nonzero %y : (tensor<?x4xi1, ["n"]>)
  %5 = relay.narrow %3, %4 {axis = -1 : i64, size = "m"} : (tensor<2x?xi64, ["4*n"]>, tensor<i64>)
  func.return %2, %5 : tensor<2x?xi64, ["nz"]>, tensor<2x?xi64, ["m"]>
}

func.func @nms(%boxes: tensor<2x5x4xf32>, %scores: tensor<2x3x5xf32>, %k: tensor<1xi64>, %iou: tensor<f32>, %score: tensor<1xf32>) -> tensor<?x3xi64, ["selected"]> {
  %0, %1 = relay.non_max_suppression %boxes, %scores, %k, %iou, %score : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<f32>, tensor<1xf32>)
  %2, %3 = relay.non_max_suppression %boxes, %scores, %k, %iou, %score {center_point_box} : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<f32>, tensor<1xf32>)
  %4 = relay.narrow %0, %1 {axis = 0 : i64, size = "selected"} : (tensor<30x3xi64>, tensor<i64>)
  func.return %4 : tensor<?x3xi64, ["selected"]>
}

func.func @unique(%x: tensor<6x2xf32>, %n: tensor<?x1xi64, ["n"]>) -> (tensor<?x2xf32, ["u"]>, tensor<6xi64>) {
  %0, %1, %2, %3, %4 = relay.unique %x {sorted} : (tensor<6x2xf32>)
  %5, %6, %7, %8, %9 = relay.unique %n : (tensor<?x1xi64, ["n"]>)
  %10 = relay.narrow %0, %4 {axis = 0 : i64, size = "u"} : (tensor<6x2xf32>, tensor<i64>)
  func.return %10, %2 : tensor<?x2xf32, ["u"]>, tensor<6xi64>
}

func.func @te_graph(%count: tensor<i64>, %k: tensor<i64>) {
  te.set_size "nz" = %count, bound "6" : tensor<i64>
  te.set_size "m" = %k, bound "n*2 + 1" : tensor<i64>
  func.return
}

func.func @tir_main(%count: memref<i64>) {
  tir.set_size "nz" = %count, bound "6" : memref<i64>
  tir.set_size "rows" = %count, bound "4*n" : memref<i64>
  func.return
}
