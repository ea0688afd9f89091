// Symbolic dims at the graph level: types name their `?` dims in the encoding,
// shape inference computes with them, and `relay.dims` holds a shape as data.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK-LABEL: func.func @encoder(%x: tensor<?x?x64xf32, ["batch", "seq"]>, %w: tensor<64x64xf32>, %b: tensor<64xf32>, %p: tensor<1x512xi64>)
// CHECK-NEXT:    %0 = relay.matmul %x, %w : (tensor<?x?x64xf32, ["batch", "seq"]>, tensor<64x64xf32>) -> tensor<?x?x64xf32, ["batch", "seq"]>
// CHECK-NEXT:    %1 = relay.add %0, %b : (tensor<?x?x64xf32, ["batch", "seq"]>, tensor<64xf32>) -> tensor<?x?x64xf32, ["batch", "seq"]>
// CHECK-NEXT:    %2 = relay.reshape %1 {shape = ["batch", "seq", 4 : i64, 16 : i64]} : (tensor<?x?x64xf32, ["batch", "seq"]>) -> tensor<?x?x4x16xf32, ["batch", "seq"]>
// CHECK-NEXT:    %3 = relay.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x16xf32, ["batch", "seq"]>) -> tensor<?x4x?x16xf32, ["batch", "seq"]>
// CHECK-NEXT:    %4 = relay.transpose %2 {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x?x4x16xf32, ["batch", "seq"]>) -> tensor<?x4x16x?xf32, ["batch", "seq"]>
// CHECK-NEXT:    %5 = relay.matmul %3, %4 : (tensor<?x4x?x16xf32, ["batch", "seq"]>, tensor<?x4x16x?xf32, ["batch", "seq"]>) -> tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>
// CHECK-NEXT:    %6 = relay.softmax %5 {axis = 3 : i64} : tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>
// CHECK-NEXT:    %7 = relay.reshape %2 {shape = ["seq*batch", 64 : i64]} : (tensor<?x?x4x16xf32, ["batch", "seq"]>) -> tensor<?x64xf32, ["batch*seq"]>
// CHECK-NEXT:    %8 = relay.concatenate %7, %7 {axis = 0 : i64} : (tensor<?x64xf32, ["batch*seq"]>, tensor<?x64xf32, ["batch*seq"]>) -> tensor<?x64xf32, ["2*batch*seq"]>
// CHECK-NEXT:    %9 = relay.dims {dims = ["batch", "1 + seq", 64 : i64]} : () -> tensor<3xi64>
// CHECK-NEXT:    %10 = relay.dims {dims = array<i64: 2, 3>} : () -> tensor<2xi64>
// CHECK-NEXT:    %11 = relay.arange {size = ["seq"], start = 0 : i64, step = 1 : i64} : () -> tensor<?xi64, ["seq"]>
// CHECK-NEXT:    %12 = relay.arange {size = ["(seq + 1) // 2"], start = 5.000000e-01 : f32, step = 2.000000e+00 : f32} : () -> tensor<?xf32, ["((seq + 1) // 2)"]>
// CHECK-NEXT:    %13 = relay.strided_slice %p {begin = array<i64: 0, 0>, end = [1 : i64, "seq"], strides = array<i64: 1, 1>} : (tensor<1x512xi64>) -> tensor<1x?xi64, ["seq"]>
// CHECK-NEXT:    %14 = relay.broadcast_to %13 {shape = ["batch", "seq"]} : (tensor<1x?xi64, ["seq"]>) -> tensor<?x?xi64, ["batch", "seq"]>
func.func @encoder(%x: tensor<?x?x64xf32, ["batch", "seq"]>, %w: tensor<64x64xf32>, %b: tensor<64xf32>, %p: tensor<1x512xi64>) -> (tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>, tensor<?x64xf32, ["2*batch*seq"]>, tensor<3xi64>, tensor<2xi64>, tensor<?xi64, ["seq"]>, tensor<?xf32, ["((seq + 1) // 2)"]>, tensor<?x?xi64, ["batch", "seq"]>) {
  %0 = relay.matmul %x, %w : (tensor<?x?x64xf32, ["batch", "seq"]>, tensor<64x64xf32>)
  %1 = relay.add %0, %b : (tensor<?x?x64xf32, ["batch", "seq"]>, tensor<64xf32>)
  %2 = relay.reshape %1 {shape = ["batch", "seq", 4, 16]} : (tensor<?x?x64xf32, ["batch", "seq"]>)
  %3 = relay.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x16xf32, ["batch", "seq"]>)
  %4 = relay.transpose %2 {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x?x4x16xf32, ["batch", "seq"]>)
  %5 = relay.matmul %3, %4 : (tensor<?x4x?x16xf32, ["batch", "seq"]>, tensor<?x4x16x?xf32, ["batch", "seq"]>)
  %6 = relay.softmax %5 {axis = 3 : i64} : (tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>)
  %7 = relay.reshape %2 {shape = ["seq*batch", 64]} : (tensor<?x?x4x16xf32, ["batch", "seq"]>)
  %8 = relay.concatenate %7, %7 {axis = 0 : i64} : (tensor<?x64xf32, ["batch*seq"]>, tensor<?x64xf32, ["batch*seq"]>)
  %9 = relay.dims {dims = ["batch", "1 + seq", 64]} : ()
  %10 = relay.dims {dims = array<i64: 2, 3>} : ()
  %11 = relay.arange {size = ["seq"], start = 0 : i64, step = 1 : i64} : ()
  %12 = relay.arange {size = ["(seq + 1) // 2"], start = 0.5 : f32, step = 2.0 : f32} : ()
  %13 = relay.strided_slice %p {begin = array<i64: 0, 0>, end = [1, "seq"], strides = array<i64: 1, 1>} : (tensor<1x512xi64>)
  %14 = relay.broadcast_to %13 {shape = ["batch", "seq"]} : (tensor<1x?xi64, ["seq"]>)
  func.return %6, %8, %9, %10, %11, %12, %14 : tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>, tensor<?x64xf32, ["2*batch*seq"]>, tensor<3xi64>, tensor<2xi64>, tensor<?xi64, ["seq"]>, tensor<?xf32, ["((seq + 1) // 2)"]>, tensor<?x?xi64, ["batch", "seq"]>
}
