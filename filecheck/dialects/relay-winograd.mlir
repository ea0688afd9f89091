// Round trip of Winograd convolution's transforms (conv2d-winograd's ops):
// custom form, and generic form re-parsed. The result type may be left out (it
// is inferred) or given.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// F(4x4, 3x3) over 2 images of 7x6 (the tiles cover 8x8, past the output),
// padding 1 on every side, blocks of 8 input and 16 output channels.
// CHECK-LABEL: func.func @f4(%x: tensor<2x2x7x6x8xf32>, %t: tensor<6x6xf32>, %u: tensor<1x36x16x16xf32>, %s: tensor<4x6xf32>) -> tensor<2x1x7x6x16xf32>
// CHECK-NEXT:    %v = relay.winograd_input_transform %x, %t {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x2x7x6x8xf32>, tensor<6x6xf32>) -> tensor<36x8x16xf32>
// CHECK-NEXT:    %m = relay.matmul %v, %u : (tensor<36x8x16xf32>, tensor<1x36x16x16xf32>) -> tensor<1x36x8x16xf32>
// CHECK-NEXT:    %y = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 7, 6>} : (tensor<1x36x8x16xf32>, tensor<4x6xf32>) -> tensor<2x1x7x6x16xf32>
// CHECK-NEXT:    func.return %y : tensor<2x1x7x6x16xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "f4"
// GENERIC:       %v = "relay.winograd_input_transform"(%x, %t) <{tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>}> : (tensor<2x2x7x6x8xf32>, tensor<6x6xf32>) -> tensor<36x8x16xf32>
// GENERIC:       %y = "relay.winograd_output_transform"(%m, %s) <{tile_size = 4 : i64, output_size = array<i64: 7, 6>}> : (tensor<1x36x8x16xf32>, tensor<4x6xf32>) -> tensor<2x1x7x6x16xf32>
func.func @f4(%x: tensor<2x2x7x6x8xf32>, %t: tensor<6x6xf32>, %u: tensor<1x36x16x16xf32>, %s: tensor<4x6xf32>) -> tensor<2x1x7x6x16xf32> {
  %v = relay.winograd_input_transform %x, %t {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x2x7x6x8xf32>, tensor<6x6xf32>)
  %m = relay.matmul %v, %u : (tensor<36x8x16xf32>, tensor<1x36x16x16xf32>)
  %y = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 7, 6>} : (tensor<1x36x8x16xf32>, tensor<4x6xf32>) -> tensor<2x1x7x6x16xf32>
  func.return %y : tensor<2x1x7x6x16xf32>
}

// F(2x2, 3x3) without padding (5x5 -> 3x3 outputs, 2x2 tiles), plain NCHW as
// blocks of 1, f64.
// CHECK-LABEL: func.func @f2(%x: tensor<1x3x5x5x1xf64>, %t: tensor<4x4xf64>, %s: tensor<2x4xf64>, %m: tensor<5x16x4x1xf64>) -> (tensor<16x4x3xf64>, tensor<1x5x3x3x1xf64>)
// CHECK-NEXT:    %v = relay.winograd_input_transform %x, %t {tile_size = 2 : i64} : (tensor<1x3x5x5x1xf64>, tensor<4x4xf64>) -> tensor<16x4x3xf64>
// CHECK-NEXT:    %y = relay.winograd_output_transform %m, %s {tile_size = 2 : i64, output_size = array<i64: 3, 3>} : (tensor<5x16x4x1xf64>, tensor<2x4xf64>) -> tensor<1x5x3x3x1xf64>
// GENERIC-LABEL: "func.func"() <{sym_name = "f2"
// GENERIC:       %v = "relay.winograd_input_transform"(%x, %t) <{tile_size = 2 : i64}> : (tensor<1x3x5x5x1xf64>, tensor<4x4xf64>) -> tensor<16x4x3xf64>
func.func @f2(%x: tensor<1x3x5x5x1xf64>, %t: tensor<4x4xf64>, %s: tensor<2x4xf64>, %m: tensor<5x16x4x1xf64>) -> (tensor<16x4x3xf64>, tensor<1x5x3x3x1xf64>) {
  %v = relay.winograd_input_transform %x, %t {tile_size = 2 : i64} : (tensor<1x3x5x5x1xf64>, tensor<4x4xf64>)
  %y = relay.winograd_output_transform %m, %s {tile_size = 2 : i64, output_size = array<i64: 3, 3>} : (tensor<5x16x4x1xf64>, tensor<2x4xf64>)
  func.return %v, %y : tensor<16x4x3xf64>, tensor<1x5x3x3x1xf64>
}
