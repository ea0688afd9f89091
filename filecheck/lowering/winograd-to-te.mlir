// lower-relay-to-te of Winograd's transforms (F(4x4, 3x3)): each a sum
// reduction over one axis of the 6x6 tile whose terms apply the transform
// (read from the matrix operand) along the other axis, six products each, with
// its template's schedule: the input transform keeps a register tile of whole
// rows of transformed positions (two rows on AVX-512) x one channel vector
// over the tile's columns, reading the blocked input with bounds checks (the
// column's once, each row's once: padding, tiles past its end); the output
// transform keeps one tile of 4x4 points (vectors of the channel block) over
// the tile's rows and writes them back through the fused bias and relu.
// RUN: lamina-opt %s --split-input-file -p fuse-ops,lower-relay-to-te | filecheck %s

// CHECK-LABEL: te.func @winograd_input_transform {
// CHECK-NEXT:    %[[X:.*]] = te.placeholder "in0" : tensor<1x2x7x6x16xf32>
// CHECK-NEXT:    %[[T:.*]] = te.placeholder "in1" : tensor<6x6xf32>
// CHECK-NEXT:    %{{.*}} = te.compute (%[[S:.*]], %[[P:.*]], %[[C:.*]]) reduce sum (%[[J:.*]]) [6] attributes {schedule = "split(i2, 16); split(i0, {{[0-9]+}}); reorder(i1, i2.o, i0.o, r0, i0.i, i2.i); {{.*}}cache_write({{.*}}); unroll(i0.i); vectorize(i2.i)"} : tensor<36x4x32xf32> {
// CHECK:           %[[XI:.*]] = arith.divui %[[S]], %{{.*}} : index
// CHECK-NEXT:      %[[NU:.*]] = arith.remui %[[S]], %{{.*}} : index
// CHECK-COUNT-6:   te.read %[[X]][{{.*}}] : tensor<1x2x7x6x16xf32>
// CHECK:           %[[E:.*]] = te.read %[[T]][%[[NU]], %[[J]]] : tensor<6x6xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT:      te.yield %[[R]] : f32
func.func @main(%x: tensor<1x2x7x6x16xf32>, %t: tensor<6x6xf32>) -> tensor<36x4x32xf32> {
  %v = relay.winograd_input_transform %x, %t {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x7x6x16xf32>, tensor<6x6xf32>)
  func.return %v : tensor<36x4x32xf32>
}

// -----

// CHECK-LABEL: te.func @fused_winograd_output_transform_add_relu {
// CHECK-NEXT:    %[[M:.*]] = te.placeholder "in0" : tensor<2x36x4x16xf32>
// CHECK-NEXT:    %[[A:.*]] = te.placeholder "in1" : tensor<4x6xf32>
// CHECK-NEXT:    %{{.*}} = te.placeholder "in2" : tensor<1x2x1x1x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = te.compute (%{{.*}}, %[[KB:.*]], %{{.*}}, %{{.*}}, %[[KI:.*]]) reduce sum (%[[XI:.*]]) [6] attributes {schedule = "split(i2, 4); split(i3, 4); reorder(i0, i1, i2.o, i3.o, r0, i2.i, i3.i, i4); {{.*}}cache_write({{.*}}); unroll(i2.i); unroll(i3.i); vectorize(i4)"} : tensor<1x2x7x6x16xf32> {
// CHECK-COUNT-6:   te.read %[[M]][%[[KB]], %{{.*}}, %{{.*}}, %[[KI]]] : tensor<2x36x4x16xf32>
// CHECK:           %[[E:.*]] = te.read %[[A]][%{{.*}}, %[[XI]]] : tensor<4x6xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT:      te.yield %[[R]] : f32
// CHECK:         %{{.*}} = te.compute
// CHECK:           te.read %[[Y]]
// CHECK:           arith.addf
// CHECK:         %[[OUT:.*]] = te.compute
// CHECK:           arith.maximumf
// CHECK:         te.output %[[OUT]] : tensor<1x2x7x6x16xf32>
func.func @main(%m: tensor<2x36x4x16xf32>, %s: tensor<4x6xf32>, %b: tensor<1x2x1x1x16xf32>) -> tensor<1x2x7x6x16xf32> {
  %y = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 7, 6>} : (tensor<2x36x4x16xf32>, tensor<4x6xf32>)
  %a = relay.add %y, %b : (tensor<1x2x7x6x16xf32>, tensor<1x2x1x1x16xf32>)
  %r = relay.relu %a : tensor<1x2x7x6x16xf32>
  func.return %r : tensor<1x2x7x6x16xf32>
}
